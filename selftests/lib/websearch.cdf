# The web-search flow-size distribution of the DCTCP paper (Alizadeh et
# al., SIGCOMM 2010, figure 4), as the HPCC paper's workloads use it
# (Li et al., SIGCOMM 2019; its traffic generator's
# WebSearch_distribution.txt): flow size in bytes, cumulative percent of
# flows.  Sizes between two points are interpolated linearly
# (selftests/lib/flowgen.py).  Mean 1.71 MB; 53% of flows are at most
# 80 KB, 3% are above 10 MB and carry 35% of the bytes.
0 0
10000 15
20000 20
30000 30
50000 40
80000 53
200000 60
1000000 70
2000000 80
5000000 90
10000000 97
30000000 100
