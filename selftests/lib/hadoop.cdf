# The Hadoop flow-size distribution of Facebook's datacenters (Roy et
# al., "Inside the Social Network's (Datacenter) Network", SIGCOMM 2015),
# as the HPCC paper's workloads use it (Li et al., SIGCOMM 2019; its
# traffic generator's FbHdp_distribution.txt): flow size in bytes,
# cumulative percent of flows.  Sizes between two points are interpolated
# linearly (selftests/lib/flowgen.py).  Mean 120 KB; half the flows are
# at most 700 bytes, 90% at most 120 KB, and the 10% above carry most
# of the bytes.
0 0
100 1
200 2
300 5
350 15
400 20
500 30
600 40
700 50
1000 60
2000 67
7000 70
30000 72
50000 82
80000 87
120000 90
300000 95
1000000 97.5
2000000 99
10000000 100
