// SPDX-License-Identifier: GPL-2.0
/*
 * dccsim: the ns-3 model of the evaluation (Documentation/sim.rst).
 *
 *   dccsim --topo=dumbbell|leafspine --workload=single|long|poisson|incast
 *          --cc=dctcp|cubic|hpcc|ldcp|ns3::TypeName [--out=REC.json] [--flows=F.jsonl]
 *          [... see --help]
 *
 * Topologies: a dumbbell (N senders - L - bottleneck - R - M receivers)
 * and a two-tier leaf-spine with per-flow hashed paths (flow-routing.h).
 * Every switch port and host NIC is a CsigQueueDisc (csig-model.h):
 * drop-tail in bytes (a switch's port inside a shared buffer), ECN at K
 * for dctcp, CSIG compare-and-replace; a host's NIC inserts tags into its
 * TCP data and reflects the tags it received on its segments.
 *
 * Records: one JSON object in the shape of selftests/lib/fctrun.py's
 * (tools/bench_report.py reads it, "source": "sim") and per-flow JSON
 * lines.
 */
#include "csig-model.h"
#include "tcp-dcc-sim.h"
#include "csig_cfg.h"
#include "dcc_acktrace.h"
#include "dcc_ctl.h"
#include "flow-routing.h"

#include "ns3/applications-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

/* --- configuration --- */

struct Opts
{
    std::string topo = "dumbbell";
    std::string workload = "single";
    std::string cc = "dctcp";
    std::string label; /* the record's cc; empty: --cc's (hpcc,probe=0 without the probe) */
    /* dumbbell */
    uint32_t senders = 2, receivers = 1;
    /* leaf-spine */
    uint32_t leaves = 4, spines = 4, hostsPerLeaf = 8;
    std::string fabricRate; /* "": non-blocking */
    std::string rate = "1Gbps";     /* dumbbell bottleneck; leaf-spine hosts */
    std::string hostRate;           /* dumbbell hosts; "": the bottleneck's */
    std::string delay = "10us";     /* every link */
    uint64_t buffer = 0;            /* dumbbell port / switch shared buffer, bytes */
    double alpha = 1.0;             /* shared buffer's dynamic threshold */
    uint64_t ecnK = 0;              /* bytes; 0: the DCTCP rule */
    bool ldcpWred = true;           /* ldcp: WRED from K to ecnKMax */
    uint64_t ecnKMax = 0;           /* bytes; 0: 3 K */
    double wredPMax = 1.0;
    std::string hostDelays;         /* dumbbell senders' links: "1us,4us,..." */
    uint32_t mtu = 1500;
    double minRtoMs = 200;
    uint32_t delAck = 0;            /* segments per ACK; 0: dctcp 1, else 2 */
    bool hostFq = true;             /* hosts' NICs serve flows round-robin */
    /* CSIG */
    uint64_t csigTNs = 0, csigIntervalNs = 0; /* 0: the base RTT */
    uint32_t hpccTUs = 0;                     /* hpcc's T, us; 0: the base RTT */
    uint32_t hpccLineMbps = 0;                /* hpcc's line rate; 0: the hosts' */
    /* workloads */
    uint64_t size = 1000000;        /* single, incast */
    uint32_t flows = 2;             /* long */
    double lateS = 0;               /* long: the last flow starts this late */
    double leaveS = 0;              /* long: all but the last stop writing then */
    double pauseS = 0, resumeS = 0; /* long: the last flow pauses, then resumes */
    bool hpccProbe = true;          /* hpcc: TCP's CA_EVENT_TX_START passed on */
    bool metrics = false;           /* hosts keep ssthresh per destination */
    double secs = 0.05;             /* long: duration; poisson: arrivals */
    double drain = 0.5;             /* poisson/incast: extra time to finish */
    std::string cdf = "websearch"; /* a file, or websearch / hadoop */
    double load = 0.6;
    double bgLoad = 0;              /* incast: Poisson flows of cdf beside */
    uint32_t queries = 5;
    double gap = 0.005;
    double jitterUs = 0;            /* incast, long: each flow's start, uniform */
    uint32_t seed = 1;
    uint32_t round = 1;
    std::string scenario;
    std::string out, flowsOut;
    double sampleDt = 0.0001;        /* backlog series, s */
    double flowDt = 0.005;           /* long flows' throughput bins, s */
};

Opts g;

/* --- topology --- */

struct Port
{
    Ptr<CsigQueueDisc> qd;
    Ptr<NetDevice> dev;
    uint64_t bps;
    bool switchPort;
    bool toHost; /* a switch's port toward a host */
};

struct SharedBuffer
{
    uint64_t total = 0, used = 0;
};

struct Net
{
    NodeContainer hosts, switches;
    std::vector<Ipv4Address> addr;           /* per host */
    std::vector<Ptr<CsigHost>> csig;         /* per host */
    std::vector<Port> ports;
    std::vector<uint32_t> monitored;         /* ports in the headline */
    /* adjacency: node id -> (peer node id, my ifindex, peer address) */
    std::map<uint32_t, std::vector<std::tuple<uint32_t, uint32_t, Ipv4Address>>> adj;
    std::map<uint32_t, uint32_t> hostOfNode;
    uint64_t bottleneckBps = 0;
    uint64_t linkDelayNs = 0;
    uint32_t hops = 0;                       /* links on a longest host-host path */
    std::vector<uint64_t> pathBps;           /* the links of a longest path */
    uint64_t baseRttNs = 0;
    uint64_t ecnK = 0;
    uint64_t ecnKMax = 0;                    /* WRED's K_max; 0: a step at K */
    std::vector<uint64_t> senderDelayNs;     /* dumbbell: per sender's link */
    uint64_t portBuffer = 0;
    uint32_t nextNet = 0;
    std::map<uint32_t, Ptr<CsigSharedBuffer>> shared; /* per switch node */
};

Net net;
InternetStackHelper hostStack, switchStack;
struct csig_port_cfg defCfg;

uint64_t
Bps(const std::string& s)
{
    return DataRate(s).GetBitRate();
}

/* header bytes of a full segment: IPv4 20, TCP 20, timestamps 12, PPP 2 */
constexpr uint32_t kHdr = 52, kL2 = 2;

uint32_t
Mss()
{
    return g.mtu - kHdr;
}

/* losses outside the ports' queues: devices, IP (none expected) */
uint64_t otherDrops = 0;

void
OtherDrop(Ptr<const Packet>)
{
    otherDrops++;
}

void
IpDrop(const Ipv4Header&, Ptr<const Packet>, Ipv4L3Protocol::DropReason r, Ptr<Ipv4>, uint32_t)
{
    otherDrops++;
}

/* DCCSIM_TRACE_FLOW=id: every IP hop of one flow's packets, both ways */
int traceFlow = -1;
FlowKey traceKey;

void
TraceIp(std::string ctx, Ptr<const Packet> p, Ptr<Ipv4> ipv4, uint32_t ifc)
{
    FlowKey k;
    uint32_t pl;
    uint8_t fl;
    if (traceFlow < 0 || !ParseTcp(p, k, pl, fl) ||
        !(k == traceKey || k == traceKey.Reverse()))
        return;
    Ptr<Packet> c = p->Copy();
    Ipv4Header ih;
    TcpHeader th;
    c->RemoveHeader(ih);
    c->RemoveHeader(th);
    std::cerr << Simulator::Now().GetMicroSeconds() << "us node"
              << ipv4->GetObject<Node>()->GetId() << " " << ctx << (k == traceKey ? " data " : " ack ")
              << "seq=" << th.GetSequenceNumber() << " ack=" << th.GetAckNumber()
              << " len=" << pl << " flags=" << TcpHeader::FlagsToString(fl)
              << " ecn=" << (int)ih.GetEcn() << "\n";
}

/* A link between nodes a and b, each end a CsigQueueDisc. */
void
Link(Ptr<Node> a, Ptr<Node> b, uint64_t bps, bool aSwitch, bool bSwitch, uint64_t bufA,
     uint64_t bufB, uint64_t delayNs = 0)
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(bps)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(g.mtu));
    p2p.SetChannelAttribute("Delay",
                            TimeValue(NanoSeconds(delayNs ? delayNs : net.linkDelayNs)));
    /* the queue is the queue disc's: the device holds one packet */
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize("1p")));
    NetDeviceContainer d = p2p.Install(a, b);

    for (int i = 0; i < 2; i++)
    {
        TrafficControlHelper tch;
        bool sw = i == 0 ? aSwitch : bSwitch;
        bool peerHost = i == 0 ? !bSwitch : !aSwitch;
        uint64_t buf = i == 0 ? bufA : bufB;
        tch.SetRootQueueDisc("ns3::CsigQueueDisc",
                             "MaxSize",
                             QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, buf)),
                             "EcnK",
                             UintegerValue(sw ? net.ecnK : 0),
                             "EcnKMax",
                             UintegerValue(sw ? net.ecnKMax : 0),
                             "EcnPMax",
                             DoubleValue(g.wredPMax),
                             "Csig",
                             BooleanValue(sw),
                             "Insert",
                             BooleanValue(!sw),
                             "T",
                             UintegerValue(g.csigTNs),
                             "Interval",
                             UintegerValue(g.csigIntervalNs),
                             "Lm",
                             UintegerValue(net.ports.size() + 1),
                             "Fq",
                             BooleanValue(!sw && g.hostFq));
        QueueDiscContainer q = tch.Install(d.Get(i));
        Ptr<CsigQueueDisc> qd = DynamicCast<CsigQueueDisc>(q.Get(0));
        qd->SetLink(bps, kL2);
        Ptr<Node> n = i == 0 ? a : b;
        std::ostringstream nm;
        nm << (sw ? "sw" : "host") << n->GetId() << "->" << (i == 0 ? b : a)->GetId();
        qd->SetName(nm.str());
        if (!sw)
            qd->SetHost(net.csig[net.hostOfNode[n->GetId()]]);
        else if (net.shared.count(n->GetId()))
        {
            qd->SetSharedBuffer(net.shared[n->GetId()]);
            qd->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, net.shared[n->GetId()]->total));
        }
        net.ports.push_back(Port{qd, d.Get(i), bps, sw, sw && peerHost});
        d.Get(i)->TraceConnectWithoutContext("MacTxDrop", MakeCallback(&OtherDrop));
        d.Get(i)->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&OtherDrop));
        DynamicCast<PointToPointNetDevice>(d.Get(i))->GetQueue()->TraceConnectWithoutContext(
            "Drop", MakeCallback(&OtherDrop));
    }

    Ipv4AddressHelper ip;
    std::ostringstream base;
    uint32_t k = net.nextNet++;
    base << "10." << (k >> 8) << "." << (k & 0xff) << ".0";
    ip.SetBase(base.str().c_str(), "255.255.255.252");
    Ipv4InterfaceContainer ifc = ip.Assign(d);
    uint32_t ia = a->GetObject<Ipv4>()->GetInterfaceForDevice(d.Get(0));
    uint32_t ib = b->GetObject<Ipv4>()->GetInterfaceForDevice(d.Get(1));
    net.adj[a->GetId()].emplace_back(b->GetId(), ia, ifc.GetAddress(1));
    net.adj[b->GetId()].emplace_back(a->GetId(), ib, ifc.GetAddress(0));
    if (!aSwitch)
        net.addr[net.hostOfNode[a->GetId()]] = ifc.GetAddress(0);
    if (!bSwitch)
        net.addr[net.hostOfNode[b->GetId()]] = ifc.GetAddress(1);
}

/* Switches: every equal-cost next hop to each host (BFS from the host). */
void
Routes()
{
    for (uint32_t h = 0; h < net.hosts.GetN(); h++)
    {
        uint32_t hn = net.hosts.Get(h)->GetId();
        std::map<uint32_t, uint32_t> dist{{hn, 0}};
        std::vector<uint32_t> fr{hn};
        while (!fr.empty())
        {
            std::vector<uint32_t> nx;
            for (uint32_t u : fr)
                for (auto& [v, ifc, a] : net.adj[u])
                    if (!dist.count(v))
                    {
                        dist[v] = dist[u] + 1;
                        /* hosts do not forward */
                        if (!net.hostOfNode.count(v))
                            nx.push_back(v);
                    }
            fr = nx;
        }
        for (uint32_t s = 0; s < net.switches.GetN(); s++)
        {
            Ptr<Node> sw = net.switches.Get(s);
            Ptr<FlowHashRouting> r =
                DynamicCast<FlowHashRouting>(sw->GetObject<Ipv4>()->GetRoutingProtocol());
            for (auto& [v, ifc, a] : net.adj[sw->GetId()])
                if (dist.count(v) && dist[v] + 1 == dist[sw->GetId()])
                    r->AddRoute(net.addr[h], ifc, a);
        }
    }
    Ipv4StaticRoutingHelper sh;
    for (uint32_t h = 0; h < net.hosts.GetN(); h++)
    {
        Ptr<Node> n = net.hosts.Get(h);
        auto& [v, ifc, a] = net.adj[n->GetId()][0];
        sh.GetStaticRouting(n->GetObject<Ipv4>())->SetDefaultRoute(a, ifc);
    }
}

void
MakeHosts(uint32_t n)
{
    net.hosts.Create(n);
    hostStack.Install(net.hosts);
    net.addr.resize(n);
    for (uint32_t i = 0; i < n; i++)
    {
        net.hostOfNode[net.hosts.Get(i)->GetId()] = i;
        Ptr<CsigHost> c = CreateObject<CsigHost>();
        c->Install(net.hosts.Get(i), defCfg.quant);
        net.hosts.Get(i)->AggregateObject(c);
        net.csig.push_back(c);
    }
}

/*
 * The DCTCP paper's rule (Alizadeh et al., SIGCOMM 2010, section 3.4):
 * K > C * RTT / 7, with the paper's own floor in practice (20 packets
 * at 1 Gbit/s): the larger of C * RTT / 7 and 20 full frames.
 */
uint64_t
DctcpK(uint64_t bps)
{
    uint64_t k = (uint64_t)((double)bps / 8 * net.baseRttNs * 1e-9 / 7);
    return std::max<uint64_t>(k, 20ULL * (g.mtu + kL2));
}

/*
 * ldcp's switches: WRED/ECN from K_min = K to K_max (3 K unless --kmax),
 * P_max --wred-pmax, the profile of the VM benchmark's dc runs
 * (Documentation/results.rst, "Profiles"); others a step at K.
 */
uint64_t
WredKMax()
{
    if (g.cc != "ldcp" || !g.ldcpWred)
        return 0;
    return g.ecnKMax ? std::max(g.ecnKMax, net.ecnK) : 3 * net.ecnK;
}

uint64_t
BaseRtt(const std::vector<uint64_t>& path)
{
    /* propagation both ways, a full frame out and an ACK back per link */
    double t = 2.0 * path.size() * net.linkDelayNs;
    for (uint64_t b : path)
        t += (g.mtu + kL2) * 8e9 / b + (kHdr + kL2) * 8e9 / b;
    return (uint64_t)t;
}

void
Dumbbell()
{
    uint64_t c = Bps(g.rate), hc = g.hostRate.empty() ? c : Bps(g.hostRate);
    uint32_t n = g.senders + g.receivers;

    /* mixed RTTs: the senders' own links, round-robin over the list */
    std::istringstream hd(g.hostDelays);
    std::string d;
    std::vector<uint64_t> dl;
    while (std::getline(hd, d, ','))
        dl.push_back(Time(d).GetNanoSeconds());
    for (uint32_t i = 0; i < g.senders && !dl.empty(); i++)
        net.senderDelayNs.push_back(dl[i % dl.size()]);
    net.bottleneckBps = c;
    net.pathBps = {hc, c, hc};
    net.hops = 3;
    net.baseRttNs = BaseRtt(net.pathBps);
    net.ecnK = g.ecnK ? g.ecnK : DctcpK(c);
    net.ecnKMax = WredKMax();
    /* a port of its own: a BDP and then some, at least 100 frames */
    net.portBuffer = g.buffer ? g.buffer
                              : std::max<uint64_t>(100ULL * (g.mtu + kL2),
                                                   4 * (uint64_t)(c / 8 * net.baseRttNs * 1e-9));
    MakeHosts(n);
    net.switches.Create(2);
    switchStack.Install(net.switches);
    uint64_t hostBuf = 64ULL << 20; /* a host's qdisc: no loss there */
    for (uint32_t i = 0; i < g.senders; i++)
        Link(net.hosts.Get(i), net.switches.Get(0), hc, false, true, hostBuf, net.portBuffer,
             net.senderDelayNs.empty() ? 0 : net.senderDelayNs[i]);
    Link(net.switches.Get(0), net.switches.Get(1), c, true, true, net.portBuffer, net.portBuffer);
    /* the bottleneck: L's port toward R */
    net.monitored.push_back(net.ports.size() - 2);
    for (uint32_t i = 0; i < g.receivers; i++)
        Link(net.hosts.Get(g.senders + i), net.switches.Get(1), hc, false, true, hostBuf,
             net.portBuffer);
}

/*
 * Shared buffer per switch (CsigSharedBuffer): a port admits a packet
 * while its queue is below alpha times the switch's free buffer, the
 * dynamic threshold of shared-buffer switches; one congested port
 * settles at alpha / (1 + alpha) of the buffer (port_buffer_bytes).
 */
void
LeafSpine()
{
    uint64_t c = Bps(g.rate);
    uint32_t nh = g.leaves * g.hostsPerLeaf;
    uint64_t fc = g.fabricRate.empty() ? c * g.hostsPerLeaf / g.spines : Bps(g.fabricRate);

    net.bottleneckBps = c;
    net.pathBps = {c, fc, fc, c};
    net.hops = 4;
    net.baseRttNs = BaseRtt(net.pathBps);
    net.ecnK = g.ecnK ? g.ecnK : DctcpK(c);
    net.ecnKMax = WredKMax();
    /*
     * A shared-buffer switch of this speed: Broadcom Tomahawk-class,
     * 16 MB for 32 x 100 Gbit/s, i.e. 5 KB per Gbit/s of port capacity.
     */
    uint64_t perSwitchPorts = g.hostsPerLeaf + g.spines;
    uint64_t swBuf = g.buffer ? g.buffer : (uint64_t)(5000.0 * (c / 1e9) * perSwitchPorts);
    net.portBuffer = (uint64_t)(swBuf * g.alpha / (1 + g.alpha));
    MakeHosts(nh);
    net.switches.Create(g.leaves + g.spines);
    switchStack.Install(net.switches);
    uint64_t hostBuf = 64ULL << 20;
    for (uint32_t i = 0; i < g.leaves + g.spines; i++)
    {
        Ptr<CsigSharedBuffer> b = Create<CsigSharedBuffer>();
        b->total = swBuf;
        b->alpha = g.alpha;
        net.shared[net.switches.Get(i)->GetId()] = b;
    }
    for (uint32_t l = 0; l < g.leaves; l++)
        for (uint32_t h = 0; h < g.hostsPerLeaf; h++)
        {
            Link(net.hosts.Get(l * g.hostsPerLeaf + h), net.switches.Get(l), c, false, true,
                 hostBuf, net.portBuffer);
            net.monitored.push_back(net.ports.size() - 1); /* leaf -> host */
        }
    for (uint32_t l = 0; l < g.leaves; l++)
        for (uint32_t s = 0; s < g.spines; s++)
            Link(net.switches.Get(l), net.switches.Get(g.leaves + s), fc, true, true,
                 net.portBuffer, net.portBuffer);
}

/* --- flows --- */

struct Flow
{
    uint32_t id, src, dst;
    uint64_t size;
    double at;      /* planned start, s */
    uint32_t query; /* incast */
    Ptr<Socket> sock;
    Ptr<TcpCongestionOps> cc;
    FlowKey key;
    uint64_t sent = 0;
    Time t0, t1;
    bool started = false, done = false, paused = false;
    uint32_t recoveries = 0, rtos = 0;
    uint64_t rxBytes = 0;           /* at the receiver */
    uint32_t cwnd = 0, inflight = 0; /* the sender's last */
    uint32_t ssthresh = UINT32_MAX;  /* ... bytes; UINT32_MAX: none */
    TcpSocketState::TcpCongState_t state = TcpSocketState::CA_OPEN;
    Time firstTx;                    /* the first data segment sent */
    uint32_t firstCwnd = 0;          /* cwnd then, bytes */
    uint64_t firstRttBytes = 0;      /* payload sent within a base RTT of it */
    std::vector<uint64_t> rxBins;   /* long flows: bytes per flowDt */
    std::vector<uint32_t> cwndBins; /* long flows: cwnd at each bin's end */
};

std::vector<Flow> flows;
std::map<std::pair<uint32_t, uint16_t>, uint32_t> flowBySrc; /* (addr, port) */
TypeId ccType;
bool useEcn;
double endTime = 0;

void
Fill(uint32_t id)
{
    Flow& f = flows[id];
    while (f.sent < f.size && !f.paused)
    {
        uint32_t room = f.sock->GetTxAvailable();
        if (!room)
            return;
        uint32_t n = (uint32_t)std::min<uint64_t>({room, f.size - f.sent, 65536});
        int r = f.sock->Send(Create<Packet>(n));
        if (r <= 0)
            return;
        f.sent += r;
    }
}

/* the largest backlog of the monitored ports now, bytes */
uint64_t
MonitoredBacklog()
{
    uint64_t mx = 0;

    for (uint32_t i : net.monitored)
        mx = std::max<uint64_t>(mx, net.ports[i].qd->GetNBytes());
    return mx;
}

/*
 * A restart's queue: MonitoredBacklog() sampled every 100 ns for two
 * base RTTs into *peak, its largest: from the restart (--resume-s), the
 * restarting flow's first round and the one its feedback shapes, into
 * restartQ; over the two RTTs before it, the others' queue alone, into
 * restartQBefore.
 */
uint64_t restartQ = 0, restartQBefore = 0;
bool restartWatched = false;

void
PeakWatch(uint64_t* peak, uint32_t n)
{
    const uint32_t dtNs = 100;

    *peak = std::max(*peak, MonitoredBacklog());
    if ((uint64_t)(n + 1) * dtNs < 2 * net.baseRttNs)
        Simulator::Schedule(NanoSeconds(dtNs), &PeakWatch, peak, n + 1);
}

/*
 * --metrics: Linux's tcp_metrics with net.ipv4.tcp_no_ssthresh_metrics_save
 * at 0, its ssthresh alone: each host's value per destination host,
 * segments (0: none), written when a flow closes as tcp_update_metrics()
 * does and given to the host's next flow to that destination as its
 * initial ssthresh (tcp_init_metrics()).
 */
std::map<std::pair<uint32_t, uint32_t>, uint32_t> ssthreshCache;

void
UpdateMetrics(const Flow& f)
{
    const uint32_t inf = DCC_INFINITE_SSTHRESH;
    uint32_t mss = Mss(), cwnd = f.cwnd / mss;
    uint32_t ss = f.ssthresh == UINT32_MAX ? inf : f.ssthresh / mss;
    uint32_t& val = ssthreshCache[{f.src, f.dst}];

    if (ss >= inf)
    {
        /* tcp_in_initial_slowstart(): only a value there grows */
        if (val && cwnd / 2 > val)
            val = cwnd / 2;
    }
    else if (cwnd >= ss && f.state == TcpSocketState::CA_OPEN)
        val = std::max(cwnd / 2, ss); /* congestion avoidance */
    else if (val && ss > val)
        val = ss;
}

void
CongState(uint32_t id, TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
{
    flows[id].state = n;
    if (n == TcpSocketState::CA_RECOVERY && o != n)
        flows[id].recoveries++;
    if (n == TcpSocketState::CA_LOSS && o != n)
        flows[id].rtos++;
}

uint16_t Listen(uint32_t id);

void
StartFlow(uint32_t id)
{
    Flow& f = flows[id];
    Ptr<Node> n = net.hosts.Get(f.src);
    Ptr<Socket> s = Socket::CreateSocket(n, TcpSocketFactory::GetTypeId());
    Ptr<TcpSocketBase> tb = DynamicCast<TcpSocketBase>(s);
    ObjectFactory of;
    of.SetTypeId(ccType);
    f.cc = of.Create<TcpCongestionOps>();
    tb->SetCongestionControlAlgorithm(f.cc);
    if (useEcn)
        tb->SetUseEcn(TcpSocketState::On);
    tb->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, id));
    if (g.metrics)
    {
        auto it = ssthreshCache.find({f.src, f.dst});
        if (it != ssthreshCache.end() && it->second)
            tb->SetAttribute("InitialSlowStartThreshold",
                             UintegerValue((uint64_t)it->second * Mss()));
        tb->TraceConnectWithoutContext(
            "SlowStartThreshold",
            MakeCallback(+[](uint32_t id, uint32_t, uint32_t v) { flows[id].ssthresh = v; })
                .Bind(id));
    }
    tb->TraceConnectWithoutContext(
        "CongestionWindow",
        MakeCallback(+[](uint32_t id, uint32_t, uint32_t v) {
            Flow& f = flows[id];
            f.cwnd = v;
            /* the last value in each bin, as iperf3 reads tcpi_snd_cwnd */
            if (g.workload == "long")
            {
                size_t b = (size_t)(Simulator::Now().GetSeconds() / g.flowDt);
                if (f.cwndBins.size() <= b)
                    f.cwndBins.resize(b + 1, 0);
                f.cwndBins[b] = v;
            }
        }).Bind(id));
    tb->TraceConnectWithoutContext(
        "BytesInFlight",
        MakeCallback(+[](uint32_t id, uint32_t, uint32_t v) { flows[id].inflight = v; }).Bind(id));
    tb->TraceConnectWithoutContext(
        "Tx",
        MakeCallback(+[](uint32_t id, Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>) {
            Flow& f = flows[id];
            if (!p->GetSize())
                return;
            if (f.firstTx.IsZero())
            {
                f.firstTx = Simulator::Now();
                f.firstCwnd = f.cwnd;
            }
            if ((Simulator::Now() - f.firstTx).GetNanoSeconds() < (int64_t)net.baseRttNs)
                f.firstRttBytes += p->GetSize();
        }).Bind(id));
    /* hpcc, ldcp: the ACKs' ECE, as Linux's in_ack_event() has it */
    if (Ptr<TcpDccSim> d = DynamicCast<TcpDccSim>(f.cc))
        d->Attach(tb);
    f.sock = s;
    s->Bind();
    Address a;
    s->GetSockName(a);
    uint16_t port = InetSocketAddress::ConvertFrom(a).GetPort();
    uint16_t dport = Listen(id);
    f.key = FlowKey{net.addr[f.src].Get(), net.addr[f.dst].Get(), port, dport};
    if ((int)id == traceFlow)
        traceKey = f.key;
    flowBySrc[{net.addr[f.src].Get(), port}] = id;
    /* the congestion control's way to its socket's CSIG samples */
    CsigHost::Bind(PeekPointer(f.cc), net.csig[f.src], f.key);
    s->SetConnectCallback(
        MakeCallback(+[](uint32_t id, Ptr<Socket>) {
            flows[id].t0 = Simulator::Now();
            flows[id].started = true;
            Fill(id);
        }).Bind(id),
        MakeNullCallback<void, Ptr<Socket>>());
    s->SetSendCallback(MakeCallback(+[](uint32_t id, Ptr<Socket>, uint32_t) { Fill(id); }).Bind(id));
    /* the receiver's answer: one byte once it has them all */
    s->SetRecvCallback(MakeCallback(+[](uint32_t id, Ptr<Socket> s) {
                           Flow& f = flows[id];
                           while (s->Recv())
                               ;
                           if (!f.done)
                           {
                               f.t1 = Simulator::Now();
                               f.done = true;
                               if (g.metrics)
                                   UpdateMetrics(f);
                               s->Close();
                           }
                       }).Bind(id));
    s->Connect(InetSocketAddress(net.addr[f.dst], dport));
}

void
SinkRecv(Ptr<Socket> s)
{
    Address from;
    Ptr<Packet> p;
    while ((p = s->RecvFrom(from)))
    {
        InetSocketAddress fa = InetSocketAddress::ConvertFrom(from);
        auto it = flowBySrc.find({fa.GetIpv4().Get(), fa.GetPort()});
        if (it == flowBySrc.end())
            continue;
        Flow& f = flows[it->second];
        f.rxBytes += p->GetSize();
        if (g.workload == "long")
        {
            size_t b = (size_t)(Simulator::Now().GetSeconds() / g.flowDt);
            if (f.rxBins.size() <= b)
                f.rxBins.resize(b + 1);
            f.rxBins[b] += p->GetSize();
        }
        if (f.rxBytes >= f.size && g.workload != "long")
            s->Send(Create<Packet>(1));
    }
}

/*
 * The flow's own listening socket on its receiver, closed once it has
 * accepted: ns-3 3.37's sockets forked from a listener that accepted
 * before do not echo CE (a second incast query's dctcp receivers sent
 * no ECE at all), so no listener accepts twice.
 */
uint16_t
Listen(uint32_t id)
{
    static std::map<uint32_t, uint16_t> next; /* per host */
    Flow& f = flows[id];
    uint16_t& p = next[f.dst];
    if (p < 10000 || p >= 60000)
        p = 10000;
    uint16_t port = p++;
    Ptr<Socket> l = Socket::CreateSocket(net.hosts.Get(f.dst), TcpSocketFactory::GetTypeId());
    if (l->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) < 0)
        NS_FATAL_ERROR("receiver " << f.dst << ": port " << port << " in use");
    l->Listen();
    l->SetAcceptCallback(
        MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
        MakeCallback(+[](Ptr<Socket> l, Ptr<Socket> s, const Address&) {
            s->SetRecvCallback(MakeCallback(&SinkRecv));
            s->SetCloseCallbacks(MakeCallback(+[](Ptr<Socket> s) { s->Close(); }),
                                 MakeCallback(+[](Ptr<Socket> s) {}));
            l->Close();
        }).Bind(l));
    return port;
}

/* A CDF file of "bytes percent" lines (selftests/lib/flowgen.py's Cdf). */
struct Cdf
{
    std::vector<std::pair<double, double>> pts; /* (percent, bytes) */

    explicit Cdf(const std::string& path)
    {
        std::ifstream in(path);
        std::string line;
        if (!in)
            NS_FATAL_ERROR("cannot read " << path);
        while (std::getline(in, line))
        {
            if (line.empty() || line[0] == '#')
                continue;
            std::istringstream ls(line);
            double b, p;
            if (ls >> b >> p)
                pts.emplace_back(p, b);
        }
        if (pts.size() < 2)
            NS_FATAL_ERROR(path << ": not a CDF");
    }
    double Sample(double u) const /* u in [0, 100) */
    {
        for (size_t i = 1; i < pts.size(); i++)
            if (u <= pts[i].first)
            {
                auto [p0, b0] = pts[i - 1];
                auto [p1, b1] = pts[i];
                return p1 > p0 ? b0 + (b1 - b0) * (u - p0) / (p1 - p0) : b1;
            }
        return pts.back().second;
    }
    double Mean() const
    {
        double m = 0;
        for (size_t i = 1; i < pts.size(); i++)
            m += (pts[i].first - pts[i - 1].first) / 100.0 *
                 (pts[i].second + pts[i - 1].second) / 2;
        return m;
    }
};

void
AddFlow(uint32_t src, uint32_t dst, uint64_t size, double at, uint32_t query = 0)
{
    Flow f;
    f.id = flows.size();
    f.src = src;
    f.dst = dst;
    f.size = std::max<uint64_t>(size, 64); /* flowgen.py's MIN_SIZE */
    f.at = at;
    f.query = query;
    flows.push_back(f);
}

std::vector<uint32_t>
Senders()
{
    std::vector<uint32_t> v;
    uint32_t n = g.topo == "dumbbell" ? g.senders : net.hosts.GetN();
    for (uint32_t i = 0; i < n; i++)
        v.push_back(i);
    return v;
}

std::vector<uint32_t>
Receivers()
{
    std::vector<uint32_t> v;
    if (g.topo == "dumbbell")
        for (uint32_t i = 0; i < g.receivers; i++)
            v.push_back(g.senders + i);
    else
        for (uint32_t i = 0; i < net.hosts.GetN(); i++)
            v.push_back(i);
    return v;
}

/*
 * Poisson arrivals of --cdf's flow sizes (the VM benchmark's own mixes by
 * name, unscaled) at LOAD of the bottleneck (dumbbell) or of every host's
 * link (leaf-spine), for --secs, between random senders and receivers
 */
void
PoissonFlows(double load, Ptr<UniformRandomVariable> u)
{
    auto snd = Senders(), rcv = Receivers();

    if (g.cdf == "websearch" || g.cdf == "hadoop")
        g.cdf = std::string(DCCSIM_TOP) + "/selftests/lib/" + g.cdf + ".cdf";
    Cdf cdf(g.cdf);
    Ptr<ExponentialRandomVariable> e = CreateObject<ExponentialRandomVariable>();
    double cap = g.topo == "dumbbell" ? net.bottleneckBps
                                      : (double)net.bottleneckBps * net.hosts.GetN();
    double lam = load * cap / 8 / cdf.Mean(); /* flows per second */
    e->SetAttribute("Mean", DoubleValue(1.0 / lam));
    for (double t = 0.001 + e->GetValue(); t < 0.001 + g.secs; t += e->GetValue())
    {
        uint32_t s = snd[u->GetInteger(0, snd.size() - 1)], d;
        do
            d = rcv[u->GetInteger(0, rcv.size() - 1)];
        while (d == s);
        AddFlow(s, d, (uint64_t)cdf.Sample(u->GetValue(0, 100)), t);
    }
}

void
Workload()
{
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    auto snd = Senders(), rcv = Receivers();

    /* leaf-spine: host i sends to the host at its place in the next leaf */
    auto peer = [&](uint32_t i) {
        return g.topo == "dumbbell" ? rcv[i % rcv.size()]
                                    : (i + g.hostsPerLeaf) % net.hosts.GetN();
    };

    if (g.workload == "single")
        AddFlow(snd[0], peer(0), g.size, 0.001);
    else if (g.workload == "long")
    {
        /*
         * starts jittered by up to --jitter-us, so that seeds differ;
         * with --late-s the last flow starts then, a late joiner (at a
         * bin's start, for its convergence time)
         */
        for (uint32_t i = 0; i < g.flows; i++)
        {
            double at = 0.001 + (g.jitterUs > 0 ? u->GetValue(0, g.jitterUs) * 1e-6 : 0);
            if (g.lateS > 0 && g.flows > 1 && i == g.flows - 1)
                at = g.lateS;
            /* a restart: the others start while the last one pauses */
            if (g.pauseS > 0 && i + 1 < g.flows)
                at += g.pauseS;
            AddFlow(snd[i % snd.size()], peer(i % snd.size()), 1ULL << 50, at);
        }
        /*
         * with --leave-s every flow but the last stops writing then, as
         * an application that is done: what its socket holds still
         * goes
         */
        if (g.leaveS > 0)
            Simulator::Schedule(Seconds(g.leaveS), +[] {
                for (size_t i = 0; i + 1 < flows.size(); i++)
                    flows[i].size = flows[i].sent;
            });
        /*
         * with --pause-s and --resume-s the last flow, alone on the
         * path until then, stops writing at --pause-s and writes again
         * at --resume-s: the others start as it pauses and take the
         * link, and it restarts into a full path with the window it
         * had alone (PeakWatch() records the queue it meets)
         */
        if (g.pauseS > 0 && g.resumeS > g.pauseS)
        {
            Simulator::Schedule(Seconds(g.pauseS), +[] { flows.back().paused = true; });
            Simulator::Schedule(Seconds(g.resumeS) - NanoSeconds(2 * net.baseRttNs),
                                &PeakWatch, &restartQBefore, 0);
            Simulator::Schedule(Seconds(g.resumeS), +[] {
                flows.back().paused = false;
                restartWatched = true;
                PeakWatch(&restartQ, 0);
                Fill(flows.size() - 1);
            });
        }
        endTime = 0.001 + g.secs;
    }
    else if (g.workload == "incast")
    {
        /*
         * g.senders flows a query to rcv[0]: the dumbbell's senders, or
         * the leaf-spine's other hosts in turn, more than one flow each
         * past hosts - 1 (a fan-in of 256 on 32 hosts: 8 or 9 a host,
         * served round-robin by its NIC); starts jittered by up to
         * --jitter-us, drawn from the seed
         */
        uint32_t nh = net.hosts.GetN();
        for (uint32_t q = 0; q < g.queries; q++)
            for (uint32_t i = 0; i < g.senders; i++)
            {
                uint32_t s = g.topo == "dumbbell" ? snd[i % snd.size()]
                                                  : (rcv[0] + 1 + i % (nh - 1)) % nh;
                double j = g.jitterUs > 0 ? u->GetValue(0, g.jitterUs) * 1e-6 : 0;
                AddFlow(s, rcv[0], g.size, 0.001 + q * g.gap + j, q + 1);
            }
        /* background: --cdf's flows at --bg-load, arriving for --secs */
        if (g.bgLoad > 0)
            PoissonFlows(g.bgLoad, u);
    }
    else if (g.workload == "poisson")
        PoissonFlows(g.load, u);
    else
        NS_FATAL_ERROR("unknown workload " << g.workload);
    for (uint32_t i = 0; i < flows.size(); i++)
        Simulator::Schedule(Seconds(flows[i].at), &StartFlow, i);
}

/*
 * The ideal FCT of a flow alone on an idle path, as flowgen.py times it
 * (first byte sent to the receiver's answer): the segments' frames
 * through the store-and-forward path (every link's serialisation of the
 * first, then the rest at the slowest link), propagation both ways and
 * the answer's frame back.
 */
double
IdealUs(uint64_t size, const std::vector<uint64_t>& path)
{
    uint64_t nseg = (size + Mss() - 1) / Mss();
    double wire = size + nseg * (double)(kHdr + kL2);
    double full = std::min<double>(wire, g.mtu + kL2);
    uint64_t slow = *std::min_element(path.begin(), path.end());
    double t = 2.0 * path.size() * net.linkDelayNs;
    for (uint64_t b : path)
        t += full * 8e9 / b + (kHdr + kL2 + 1) * 8e9 / b;
    t += (wire - full) * 8e9 / slow;
    return t / 1000.0;
}

/* the links from host @src to host @dst (leaf-spine: 2 in a leaf, 4 across) */
double
IdealUs(uint64_t size, uint32_t src, uint32_t dst)
{
    if (g.topo == "leafspine" && src / g.hostsPerLeaf == dst / g.hostsPerLeaf)
        return IdealUs(size, std::vector<uint64_t>{net.pathBps.front(), net.pathBps.back()});
    return IdealUs(size, net.pathBps);
}

/* the longest path's */
double
IdealUs(uint64_t size)
{
    return IdealUs(size, net.pathBps);
}

/* --- records --- */

std::vector<std::vector<uint64_t>> backlog; /* per monitored port, bytes */
/*
 * the monitored ports' bytes sent when the measured window starts and
 * ends (poisson: the arrivals; long: the second half); at a long run's
 * window start the queue histograms start again, so that its queue
 * percentiles are the window's, as its utilisation and Jain index
 */
std::vector<uint64_t> winTx[2];
double winS = 0;

void
SnapTx(int i)
{
    for (uint32_t p : net.monitored)
    {
        winTx[i].push_back(net.ports[p].qd->Stats().txBytes);
        if (i == 0 && g.workload == "long")
            net.ports[p].qd->ResetQueueHist();
    }
}

void
Sample()
{
    backlog.emplace_back(std::vector<uint64_t>{MonitoredBacklog()});
    Simulator::Schedule(Seconds(g.sampleDt), &Sample);
}

double
Pct(std::vector<double> v, double p)
{
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    size_t i = std::min(v.size() - 1, (size_t)std::llround(p / 100.0 * (v.size() - 1)));
    return v[i];
}

std::string
Num(double v)
{
    if (std::isnan(v) || std::isinf(v))
        return "null";
    std::ostringstream o;
    o << std::setprecision(6) << v;
    return o.str();
}

std::string
Quote(const std::string& s)
{
    return "\"" + s + "\"";
}

/* the monitored ports' histograms pooled: percentile, us */
double
PooledQueueUs(double p)
{
    std::array<uint64_t, CSIG_QHIST_N> h{};
    uint64_t n = 0, dmax = 0;
    for (uint32_t i : net.monitored)
    {
        const auto& s = net.ports[i].qd->Stats();
        for (uint32_t b = 0; b < CSIG_QHIST_N; b++)
        {
            h[b] += s.qhist[b];
            n += s.qhist[b];
        }
        dmax = std::max<uint64_t>(dmax, net.ports[i].qd->Model().d_max);
    }
    if (!n)
        return 0;
    if (p >= 100)
        return dmax / 1000.0;
    uint64_t want = (uint64_t)std::ceil(p / 100.0 * n), c = 0;
    for (uint32_t b = 0; b < CSIG_QHIST_N; b++)
    {
        c += h[b];
        if (c >= want)
            return std::min<uint64_t>(b + 1 < CSIG_QHIST_N ? csig_qhist_low(b + 1) : dmax, dmax) /
                   1000.0;
    }
    return dmax / 1000.0;
}

std::string
BinLabel(double b)
{
    std::ostringstream o;
    if (b >= 1e6)
        o << std::setprecision(3) << b / 1e6 << "MB";
    else if (b >= 1e3)
        o << std::setprecision(3) << b / 1e3 << "KB";
    else
        o << (uint64_t)b << "B";
    return o.str();
}

uint64_t
SharedPeak()
{
    uint64_t p = 0;
    for (auto& [n, b] : net.shared)
        p = std::max(p, b->peak);
    return p;
}

void
Report(double wallS, double simS)
{
    double bdp = (double)net.bottleneckBps / 8 * net.baseRttNs * 1e-9;
    std::vector<double> sd, small, smallNoRetx;
    std::ostringstream fl;
    uint32_t unfinished = 0, retxFlows = 0, rtos = 0;
    std::map<uint32_t, std::vector<std::pair<uint64_t, double>>> queries;
    std::ofstream fo;
    /* incast beside a background (--bg-load) */
    bool bg = g.workload == "incast" && g.bgLoad > 0;

    if (!g.flowsOut.empty())
        fo.open(g.flowsOut);
    bool first = true;
    for (const Flow& f : flows)
    {
        rtos += f.rtos;
        if (g.workload == "long")
            continue;
        double fct = f.done ? (f.t1 - f.t0).GetNanoSeconds() / 1000.0 : -1,
               ideal = IdealUs(f.size, f.src, f.dst);
        if (fo)
            fo << "{\"id\": " << f.id << ", \"src\": " << f.src << ", \"dst\": " << f.dst
               << ", \"size\": " << f.size << ", \"start_s\": " << Num(f.at)
               << ", \"fct_us\": " << Num(fct) << ", \"ideal_us\": " << Num(ideal)
               << ", \"slowdown\": " << (f.done ? Num(fct / ideal) : "null")
               << ", \"recoveries\": " << f.recoveries << ", \"rtos\": " << f.rtos
               << ", \"connected\": " << (f.started ? "true" : "false")
               << ", \"sent\": " << f.sent << ", \"received\": " << f.rxBytes
               << ", \"cwnd\": " << f.cwnd << ", \"inflight\": " << f.inflight << "}\n";
        if (!f.done)
        {
            unfinished++;
            continue;
        }
        if (f.query)
            queries[f.query].emplace_back(f.size, fct);
        /* beside a background, the flows' figures are the background's */
        if (f.query && bg)
            continue;
        bool retx = f.recoveries || f.rtos;
        retxFlows += retx;
        sd.push_back(fct / ideal);
        if (f.size <= bdp)
        {
            small.push_back(fct / ideal);
            if (!retx)
                smallNoRetx.push_back(fct / ideal);
        }
        fl << (first ? "" : ", ") << "[" << f.size << ", " << Num(fct) << ", " << Num(fct / ideal)
           << ", " << (f.recoveries + f.rtos) << "]";
        first = false;
    }

    /* ports */
    uint64_t drops = 0, marks = 0, txPkts = 0, monTx = 0;
    std::ostringstream ports;
    first = true;
    for (const Port& p : net.ports)
    {
        const CsigPortStats& s = p.qd->Stats();
        txPkts += s.txPkts;
        if (!p.switchPort)
            continue;
        drops += s.drops;
        marks += s.marks;
        if (!s.pkts)
            continue;
        ports << (first ? "" : ", ") << "{\"port\": " << Quote(p.qd->GetName())
              << ", \"gbit\": " << Num(p.bps / 1e9) << ", \"util\": "
              << Num(s.txBytes * 8.0 / (p.bps * simS)) << ", \"queue_p99_us\": "
              << Num(p.qd->QueuePctUs(99)) << ", \"queue_max_us\": "
              << Num(p.qd->Model().d_max / 1000.0) << ", \"queue_max_bytes\": " << s.qmaxBytes
              << ", \"drops\": " << s.drops << ", \"marks\": " << s.marks
              << ", \"csig_tagged\": " << s.tagged << ", \"csig_replaced\": " << s.replaced
              << ", \"u\": " << Num(p.qd->CurrentU() / (double)CSIG_FRAC_ONE) << "}";
        first = false;
    }
    double utilSum = 0;
    for (uint32_t i : net.monitored)
    {
        monTx += net.ports[i].qd->Stats().txBytes;
        utilSum += net.ports[i].qd->Stats().txBytes * 8.0 / (net.ports[i].bps * simS);
    }
    double util = net.monitored.empty() ? 0 : utilSum / net.monitored.size();
    /* poisson: over the arrivals' window only, without the drain */
    double utilWin = NAN;
    if (winTx[1].size() == net.monitored.size() && winTx[0].size() == winTx[1].size())
    {
        utilWin = 0;
        for (size_t i = 0; i < net.monitored.size(); i++)
            utilWin += (winTx[1][i] - winTx[0][i]) * 8.0 /
                       (net.ports[net.monitored[i]].bps * winS) / net.monitored.size();
        if (g.workload == "long")
            util = utilWin;
    }

    /* CSIG: the bottleneck port's U and what the first flow's sender read */
    const Port& bp = net.ports[net.monitored[0]];
    const CsigSample* cs = flows.empty() ? nullptr : CsigHost::SampleFor(PeekPointer(flows[0].cc));
    double uPort = bp.qd->CurrentU() / (double)CSIG_FRAC_ONE;
    double uEcho = cs ? cs->value / (double)CSIG_FRAC_ONE : NAN;
    double echoAge = cs ? (Simulator::Now() - cs->at).GetNanoSeconds() / 1000.0 : NAN;

    std::ostringstream m;
    m << "{\"util\": " << Num(util) << ", \"util_window\": " << Num(utilWin)
      << ", \"flows\": " << sd.size()
      << ", \"unfinished\": " << unfinished << ", \"errors\": 0"
      << ", \"slowdown_p50\": " << Num(Pct(sd, 50)) << ", \"slowdown_p95\": " << Num(Pct(sd, 95))
      << ", \"slowdown_p99\": " << Num(Pct(sd, 99)) << ", \"small_p99\": " << Num(Pct(small, 99))
      << ", \"small_p99_noretx\": " << Num(Pct(smallNoRetx, 99))
      << ", \"retx_flows\": " << retxFlows << ", \"timeouts\": " << rtos
      << ", \"drops\": " << drops << ", \"marks\": " << marks
      << ", \"queue_p50_us\": " << Num(PooledQueueUs(50))
      << ", \"queue_p99_us\": " << Num(PooledQueueUs(99))
      << ", \"queue_max_us\": " << Num(PooledQueueUs(100))
      << ", \"ecn_k_bytes\": " << net.ecnK << ", \"ecn_kmax_bytes\": " << net.ecnKMax
      << ", \"port_buffer_bytes\": " << net.portBuffer
      << ", \"shared_buffer_peak_bytes\": " << SharedPeak()
      << ", \"base_rtt_us\": " << Num(net.baseRttNs / 1000.0)
      << ", \"csig_u_port\": " << Num(uPort) << ", \"csig_u_echo\": " << Num(uEcho)
      << ", \"csig_echo_age_us\": " << Num(echoAge)
      << ", \"csig_echo_samples\": " << (cs ? cs->n : 0)
      << ", \"sim_packets\": " << txPkts << ", \"sim_wall_s\": " << Num(wallS)
      << ", \"sim_pkts_per_s\": " << Num(txPkts / wallS);
    std::vector<double> qs; /* incast: each query's slowdown */
    if (g.workload == "incast")
    {
        uint32_t per = g.senders;
        for (auto& [q, v] : queries)
        {
            if (v.size() != per)
                continue;
            double mx = 0, bytes = 0;
            for (auto& [sz, fct] : v)
            {
                mx = std::max(mx, fct);
                bytes += sz;
            }
            qs.push_back(mx / IdealUs(bytes));
        }
        m << ", \"qct_p50\": " << Num(Pct(qs, 50)) << ", \"qct_p99\": " << Num(Pct(qs, 99))
          << ", \"queries\": " << qs.size() << ", \"start_skew_ms\": 0";
    }
    if (g.workload == "poisson" || g.workload == "single" || bg)
    {
        double e[3] = {bdp, 10 * bdp, 100 * bdp}, lo = 0;
        m << ", \"bins\": {";
        for (int i = 0; i < 4; i++)
        {
            double hi = i < 3 ? e[i] : INFINITY;
            std::vector<double> v;
            for (const Flow& f : flows)
                if (f.done && f.size > lo && f.size <= hi && !(bg && f.query))
                    v.push_back((f.t1 - f.t0).GetNanoSeconds() / 1000.0 /
                                IdealUs(f.size, f.src, f.dst));
            std::string lab = i == 0 ? "<=" + BinLabel(e[0])
                              : i < 3 ? BinLabel(e[i - 1]) + "-" + BinLabel(e[i])
                                      : ">" + BinLabel(e[2]);
            m << (i ? ", " : "") << Quote(lab) << ": {\"n\": " << v.size()
              << ", \"p50\": " << Num(Pct(v, 50)) << ", \"p95\": " << Num(Pct(v, 95))
              << ", \"p99\": " << Num(Pct(v, 99)) << "}";
            lo = hi;
        }
        m << "}";
        double offered = 0;
        for (const Flow& f : flows)
            offered += f.query ? 0 : f.size;
        m << ", \"offered\": "
          << Num(offered * 8 /
                 (g.secs * (g.topo == "dumbbell" ? net.bottleneckBps
                                                 : (double)net.bottleneckBps * net.hosts.GetN())));
    }
    std::ostringstream series;
    series << "{\"fct\": [" << fl.str() << "], \"qct\": [";
    for (size_t i = 0; i < qs.size(); i++)
        series << (i ? ", " : "") << Num(qs[i]);
    series << "], \"backlog_dt\": " << Num(g.sampleDt)
           << ", \"backlog_t0\": 0, \"backlog\": [";
    for (size_t i = 0; i < backlog.size(); i++)
        series << (i ? ", " : "") << backlog[i][0];
    series << "], \"flow_dt\": " << Num(g.flowDt) << ", \"flows\": [";
    if (g.workload == "long")
    {
        std::vector<double> means;
        double t0 = 0.001 + g.secs / 2, t1 = 0.001 + g.secs;
        for (size_t i = 0; i < flows.size(); i++)
        {
            const Flow& f = flows[i];
            series << (i ? ", " : "") << "{\"start\": " << Num(f.at) << ", \"mbit\": [";
            size_t b0 = (size_t)(f.at / g.flowDt);
            double sum = 0;
            for (size_t b = b0; b < f.rxBins.size(); b++)
            {
                double mb = f.rxBins[b] * 8 / g.flowDt / 1e6;
                series << (b > b0 ? ", " : "") << Num(mb);
                if ((b + 0.5) * g.flowDt >= t0 && (b + 1) * g.flowDt <= t1 + 1e-12)
                    sum += mb;
            }
            /* cwnd, bytes, at each bin's end: a bin without a change
             * holds the value before it */
            series << "], \"cwnd\": [";
            uint32_t cw = 0;
            for (size_t b = 0; b < f.rxBins.size(); b++)
            {
                if (b < f.cwndBins.size() && f.cwndBins[b])
                    cw = f.cwndBins[b];
                if (b >= b0)
                    series << (b > b0 ? ", " : "") << cw;
            }
            series << "]}";
            means.push_back(sum);
        }
        double s = 0, q = 0;
        for (double x : means)
        {
            s += x;
            q += x * x;
        }
        /*
         * a late joiner's convergence: from its start to the end of its
         * first --flow-dt bin at 80% of its fair share of the bottleneck
         * (the VM's convergence scenario reads 0.5 s intervals the same
         * way)
         */
        std::string conv = "null", gone = "null";
        if (g.lateS > 0 && flows.size() > 1)
        {
            const Flow& f = flows.back();
            double share = net.bottleneckBps / 1e6 / flows.size();
            for (size_t b = (size_t)(f.at / g.flowDt + 1e-6); b < f.rxBins.size(); b++)
                if (f.rxBins[b] * 8 / g.flowDt / 1e6 >= 0.8 * share)
                {
                    conv = Num((b + 1) * g.flowDt - f.at);
                    break;
                }
        }
        /*
         * the others leaving: from the end of the last bin in which any
         * of them still delivered (its socket's backlog drained after
         * --leave-s; gone_s from --leave-s) to the end of the last
         * flow's first bin at 80% of the bottleneck, all of it its share
         * now
         */
        if (g.leaveS > 0 && flows.size() > 1)
        {
            const Flow& f = flows.back();
            double link = net.bottleneckBps / 1e6, end = g.leaveS;
            for (size_t i = 0; i + 1 < flows.size(); i++)
                for (size_t b = flows[i].rxBins.size(); b-- > 0;)
                    if (flows[i].rxBins[b])
                    {
                        end = std::max(end, (b + 1) * g.flowDt);
                        break;
                    }
            gone = Num(end - g.leaveS);
            for (size_t b = (size_t)(end / g.flowDt + 1e-6); b < f.rxBins.size(); b++)
                if (f.rxBins[b] * 8 / g.flowDt / 1e6 >= 0.8 * link)
                {
                    conv = Num((b + 1) * g.flowDt - end);
                    break;
                }
        }
        /*
         * a restart: the queue it met (PeakWatch()), and its time from
         * --resume-s to the end of its first bin at 80% of its fair share
         */
        std::string rq = "null", rqb = "null", rconv = "null";
        if (restartWatched)
        {
            const Flow& f = flows.back();
            double share = net.bottleneckBps / 1e6 / flows.size();
            rq = Num(restartQ);
            rqb = Num(restartQBefore);
            for (size_t b = (size_t)(g.resumeS / g.flowDt + 1e-6); b < f.rxBins.size(); b++)
                if (f.rxBins[b] * 8 / g.flowDt / 1e6 >= 0.8 * share)
                {
                    rconv = Num((b + 1) * g.flowDt - g.resumeS);
                    break;
                }
        }
        m << ", \"restart_q_bytes\": " << rq << ", \"restart_q_before_bytes\": " << rqb
          << ", \"restart_conv_s\": " << rconv;
        /* Jain's index: none with --leave-s, where one flow stays */
        m << ", \"jain\": " << Num(q && !(g.leaveS > 0) ? s * s / (means.size() * q) : NAN)
          << ", \"conv_s\": " << conv << ", \"gone_s\": " << gone;
    }
    series << "]}";
    m << "}";

    std::string kind = g.workload == "long"     ? "long"
                       : g.workload == "incast" ? "incast"
                                                : "poisson";
    std::vector<uint32_t> srcs;
    for (const Flow& f : flows)
        srcs.push_back(f.src);
    /* per flow: its sender's link (mixed RTTs), else the common delay */
    std::ostringstream delays;
    for (size_t i = 0; i < flows.size() && !net.senderDelayNs.empty(); i++)
        delays << (i ? ", " : "")
               << Quote(Num(net.senderDelayNs[flows[i].src % net.senderDelayNs.size()] / 1000.0) +
                        "us");
    std::string scen = g.scenario.empty() ? "sim-" + g.topo + "-" + g.workload : g.scenario;
    std::ostringstream rec;
    rec << "{\"source\": \"sim\", \"scenario\": " << Quote(scen) << ", \"kind\": " << Quote(kind)
        << ", \"cc\": "
        << Quote(!g.label.empty()                ? g.label
                 : g.cc == "hpcc" && !g.hpccProbe ? "hpcc,probe=0"
                                                  : g.cc)
        << ", \"round\": " << g.round
        << ", \"kernel\": \"ns-3 3.37 (dccsim)\", \"topo\": " << Quote(g.topo)
        << ", \"rate_mbit\": " << Num(net.bottleneckBps / 1e6)
        << ", \"delay\": " << Quote(g.delay + " per link") << ", \"delays\": [" << delays.str()
        << "]"
        << ", \"secs\": " << Num(g.secs)
        << ", \"load_pct\": " << Num((g.workload == "incast" ? g.bgLoad : g.load) * 100)
        << ", \"flow_size\": " << (g.workload == "incast" ? g.size : 0)
        << ", \"seeds\": " << Quote(std::to_string(g.seed))
        << ", \"rtt0_ms\": " << Num(net.baseRttNs / 1e6) << ", \"size_scale\": 1"
        << ", \"mix\": " << Quote(g.cdf.find("hadoop") != std::string::npos ? "hadoop" : "websearch")
        << ", \"bdp\": " << Num(bdp) << ", \"mtu\": " << g.mtu
        << ", \"nsenders\": "
        << (g.workload == "incast" ? g.senders
            : g.topo == "dumbbell" ? std::set<uint32_t>(srcs.begin(), srcs.end()).size()
                                   : net.hosts.GetN())
        << ", \"sender_hosts\": " << std::set<uint32_t>(srcs.begin(), srcs.end()).size()
        << ", \"nflows\": " << flows.size()
        << ", \"window\": [" << Num(g.workload == "long" ? 0.001 + g.secs / 2 : 0) << ", "
        << Num(g.workload == "long" ? 0.001 + g.secs : g.secs) << "]"
        << ", \"metrics\": " << m.str() << ", \"ports\": [" << ports.str() << "]"
        << ", \"series\": " << series.str() << "}\n";
    if (!g.out.empty())
    {
        std::ofstream o(g.out);
        o << rec.str();
    }

    /* a summary for people and the smoke test: key=value */
    std::cout << "dccsim " << scen << " cc=" << g.cc << " flows=" << flows.size()
              << " done=" << sd.size() << " unfinished=" << unfinished << "\n"
              << "  base_rtt_us=" << Num(net.baseRttNs / 1000.0) << " bdp_bytes=" << Num(bdp)
              << " ecn_k_bytes=" << net.ecnK << " ecn_kmax_bytes=" << net.ecnKMax
              << " port_buffer_bytes=" << net.portBuffer << "\n"
              << "  util=" << Num(util) << " util_window=" << Num(utilWin)
              << " queue_p50_us=" << Num(PooledQueueUs(50))
              << " queue_p99_us=" << Num(PooledQueueUs(99))
              << " queue_max_us=" << Num(PooledQueueUs(100)) << " drops=" << drops
              << " marks=" << marks << " rtos=" << rtos << " other_drops=" << otherDrops << "\n"
              << "  slowdown_p50=" << Num(Pct(sd, 50)) << " slowdown_p99=" << Num(Pct(sd, 99));
    if (g.workload == "single" && !flows.empty() && flows[0].done)
        std::cout << " fct_us=" << Num((flows[0].t1 - flows[0].t0).GetNanoSeconds() / 1000.0)
                  << " ideal_us=" << Num(IdealUs(flows[0].size, flows[0].src, flows[0].dst));
    std::cout << "\n  csig_u_port=" << Num(uPort) << " csig_u_echo=" << Num(uEcho)
              << " csig_echo_age_us=" << Num(echoAge)
              << " csig_echo_samples=" << (cs ? cs->n : 0) << "\n"
              << "  first_cwnd_bytes=" << (flows.empty() ? 0 : flows[0].firstCwnd)
              << " first_rtt_bytes=" << (flows.empty() ? 0 : flows[0].firstRttBytes) << "\n";
    /* hpcc, ldcp: the first flow's controller counters, as /proc/net/tcp_* names them */
    if (Ptr<TcpDccSim> d = flows.empty() ? nullptr : DynamicCast<TcpDccSim>(flows[0].cc))
    {
        std::vector<uint64_t> c = d->Counters();
        std::cout << "  cc:";
        for (size_t i = 0; i < c.size(); i++)
            std::cout << " " << d->CounterName(i) << "=" << c[i];
        std::cout << "\n";
    }
    std::cout
              << "  sim_s=" << Num(simS) << " wall_s=" << Num(wallS)
              << " packets=" << txPkts << " pkts_per_s=" << Num(txPkts / wallS) << std::endl;
}

} // namespace

int
main(int argc, char** argv)
{
    CommandLine cmd(__FILE__);
    cmd.Usage("The ns-3 model of tcp-dcc's evaluation (Documentation/sim.rst).");
    cmd.AddValue("topo", "dumbbell | leafspine", g.topo);
    cmd.AddValue("workload", "single | long | poisson | incast", g.workload);
    cmd.AddValue("cc", "dctcp (ECN at K) | cubic (drop-tail) | hpcc (CSIG U) | ldcp (ECN at K) | an ns3:: TcpCongestionOps", g.cc);
    cmd.AddValue("senders", "dumbbell: senders; incast: fan-in", g.senders);
    cmd.AddValue("metrics",
                 "hosts keep ssthresh per destination, as Linux's tcp_metrics with "
                 "net.ipv4.tcp_no_ssthresh_metrics_save=0",
                 g.metrics);
    cmd.AddValue("receivers", "dumbbell: receivers", g.receivers);
    cmd.AddValue("leaves", "leaf-spine: leaves", g.leaves);
    cmd.AddValue("spines", "leaf-spine: spines", g.spines);
    cmd.AddValue("hosts-per-leaf", "leaf-spine: hosts per leaf", g.hostsPerLeaf);
    cmd.AddValue("fabric-rate", "leaf-spine: leaf-spine links (default non-blocking)", g.fabricRate);
    cmd.AddValue("rate", "dumbbell bottleneck / leaf-spine host links", g.rate);
    cmd.AddValue("host-rate", "dumbbell host links (default: rate)", g.hostRate);
    cmd.AddValue("delay", "every link's propagation delay", g.delay);
    cmd.AddValue("buffer", "bytes: dumbbell port / leaf-spine switch (shared) buffer", g.buffer);
    cmd.AddValue("alpha", "shared buffer's dynamic threshold alpha", g.alpha);
    cmd.AddValue("k", "ECN K, bytes (0: the DCTCP rule for the link rate)", g.ecnK);
    cmd.AddValue("ldcp-wred", "ldcp: WRED/ECN from K to --kmax, else a step at K", g.ldcpWred);
    cmd.AddValue("kmax", "ldcp's WRED K_max, bytes (0: 3 K)", g.ecnKMax);
    cmd.AddValue("wred-pmax", "ldcp's WRED P_max, the probability at K_max", g.wredPMax);
    cmd.AddValue("host-delays", "dumbbell: the senders' links' delays, round-robin (\"1us,8us\")",
                 g.hostDelays);
    cmd.AddValue("mtu", "MTU (9000: jumbo frames, fewer packets)", g.mtu);
    cmd.AddValue("min-rto-ms", "TCP's minimum RTO, ms", g.minRtoMs);
    cmd.AddValue("host-fq", "hosts' NICs serve flows round-robin (fq_codel's DRR), else FIFO", g.hostFq);
    cmd.AddValue("del-ack-count", "segments per delayed ACK (0: dctcp 1, others 2)", g.delAck);
    cmd.AddValue("csig-t-ns", "CSIG T of U, ns (0: the base RTT)", g.csigTNs);
    cmd.AddValue("hpcc-t-us", "hpcc's T (BaseRttUs), us (0: the base RTT)", g.hpccTUs);
    cmd.AddValue("hpcc-line-mbps", "hpcc's line rate, Mbit/s (0: the hosts' links')",
                 g.hpccLineMbps);
    cmd.AddValue("csig-interval-ns", "CSIG rate window, ns (0: the base RTT)", g.csigIntervalNs);
    cmd.AddValue("size", "single/incast flow size, bytes", g.size);
    cmd.AddValue("flows", "long: number of flows", g.flows);
    cmd.AddValue("late-s", "long: the last flow starts at this time, s (its convergence "
                 "time is recorded)", g.lateS);
    cmd.AddValue("leave-s", "long: every flow but the last stops writing at this time, s "
                 "(the last one's time to 80% of the link once they are gone is "
                 "recorded)", g.leaveS);
    cmd.AddValue("pause-s",
                 "long: the last flow's application stops writing then, s, and the others "
                 "start",
                 g.pauseS);
    cmd.AddValue("resume-s",
                 "long: ... and writes again then, s (the queue its restart meets is recorded)",
                 g.resumeS);
    cmd.AddValue("hpcc-probe",
                 "hpcc: TCP's CA_EVENT_TX_START reaches the controller (0: no probe "
                 "after idle, for comparison)",
                 g.hpccProbe);
    cmd.AddValue("secs", "long: duration; poisson: arrivals for, s", g.secs);
    cmd.AddValue("drain", "poisson/incast: time to let flows finish, s", g.drain);
    cmd.AddValue("cdf", "poisson: websearch | hadoop (selftests/lib) | a CDF file", g.cdf);
    cmd.AddValue("load", "poisson: load, fraction of the bottleneck/host links", g.load);
    cmd.AddValue("queries", "incast: queries", g.queries);
    cmd.AddValue("bg-load",
                 "incast: --cdf's flows beside the queries at this load (fraction of the "
                 "host links), arriving for --secs; the flows' figures are then theirs",
                 g.bgLoad);
    cmd.AddValue("gap", "incast: s between queries", g.gap);
    cmd.AddValue("jitter-us", "incast, long: each flow's start jittered by up to this, us",
                 g.jitterUs);
    cmd.AddValue("seed", "RNG run number", g.seed);
    cmd.AddValue("round", "the record's round", g.round);
    cmd.AddValue("label", "the record's cc, for a variant (default: --cc)", g.label);
    cmd.AddValue("scenario", "the record's scenario name", g.scenario);
    cmd.AddValue("out", "the run's record (JSON)", g.out);
    cmd.AddValue("flows-out", "per-flow records (JSON lines)", g.flowsOut);
    cmd.AddValue("sample-dt", "queue sampling, s", g.sampleDt);
    cmd.AddValue("flow-dt", "long flows' throughput bins, s", g.flowDt);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(g.seed);
    dccsim_csig_default_cfg(&defCfg);

    if (g.cc == "dctcp")
    {
        ccType = TypeId::LookupByName("ns3::TcpDctcp");
        useEcn = true;
    }
    else if (g.cc == "hpcc")
        ccType = TcpHpccDcc::GetTypeId();
    else if (g.cc == "ldcp")
    {
        ccType = TcpLdcpDcc::GetTypeId();
        useEcn = true;
    }
    else if (g.cc == "cubic")
        ccType = TypeId::LookupByName("ns3::TcpCubic");
    else
    {
        TypeId t;
        if (!TypeId::LookupByNameFailSafe(g.cc, &t))
            NS_FATAL_ERROR("unknown congestion control " << g.cc);
        ccType = t;
    }

    /*
     * Every socket gets the algorithm, the receivers' too: ns-3's DCTCP
     * keeps its receiver's ECE state machine in the receiving socket's
     * congestion control, and ECN is negotiated by both ends.
     */
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(ccType));
    if (useEcn)
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(Mss()));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(8 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(8 << 20));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    /*
     * ns-3 3.37's DCTCP receiver, on a change of CE state, sends the
     * immediate ACK for its previous rcv_nxt, which can lie behind what
     * it acknowledged already (a delayed ACK's): the ACK for the new
     * segment then waits for the delayed-ACK timer, and a flow at a
     * cwnd of one segment crawls a segment per timeout.  dctcp's
     * receivers ACK every segment (--del-ack-count).
     */
    if (!g.delAck)
        g.delAck = g.cc == "dctcp" || g.cc == "ldcp" ? 1 : 2;
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(g.delAck));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(g.minRtoMs * 1000)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(1)));

    net.linkDelayNs = Time(g.delay).GetNanoSeconds();
    hostStack.SetRoutingHelper(Ipv4StaticRoutingHelper());
    switchStack.SetRoutingHelper(FlowHashRoutingHelper());

    /* T and the rate window: a base RTT unless chosen (HPCC's T) */
    if (g.topo == "dumbbell")
    {
        uint64_t c = Bps(g.rate), hc = g.hostRate.empty() ? c : Bps(g.hostRate);
        net.baseRttNs = BaseRtt({hc, c, hc});
    }
    else if (g.topo == "leafspine")
    {
        uint64_t c = Bps(g.rate);
        uint64_t fc = g.fabricRate.empty() ? c * g.hostsPerLeaf / g.spines : Bps(g.fabricRate);
        net.baseRttNs = BaseRtt({c, fc, fc, c});
    }
    else
        NS_FATAL_ERROR("unknown topology " << g.topo);
    if (!g.csigTNs)
        g.csigTNs = std::max<uint64_t>(net.baseRttNs, CSIG_MIN_T_NS);
    if (!g.csigIntervalNs)
        g.csigIntervalNs = std::max<uint64_t>(net.baseRttNs, CSIG_MIN_INTERVAL_NS);

    if (g.topo == "dumbbell")
        Dumbbell();
    else
        LeafSpine();
    /*
     * hpcc's and ldcp's parameters from the topology, as one would set
     * the modules' for a fabric: the hosts' line rate, the base RTT
     * (hpcc's T, ldcp's IW = rate x base RTT).  ns-3's pacing cap
     * (4 Gbit/s by default) lifted: the controllers set the rate.
     */
    {
        uint64_t hc = g.topo == "dumbbell" && !g.hostRate.empty() ? Bps(g.hostRate) : Bps(g.rate);
        uint32_t rttUs = (uint32_t)((net.baseRttNs + 999) / 1000);
        uint32_t bw = (uint32_t)((g.topo == "dumbbell" ? net.bottleneckBps : hc) / 1000000);
        Config::SetDefault("ns3::TcpHpccDcc::LineRateMbps",
                           UintegerValue(g.hpccLineMbps ? g.hpccLineMbps : hc / 1000000));
        Config::SetDefault("ns3::TcpHpccDcc::BaseRttUs",
                           UintegerValue(g.hpccTUs ? g.hpccTUs : rttUs));
        Config::SetDefault("ns3::TcpHpccDcc::Probe", BooleanValue(g.hpccProbe));
        Config::SetDefault("ns3::TcpLdcpDcc::BwMbps", UintegerValue(bw));
        Config::SetDefault("ns3::TcpLdcpDcc::BaseRttUs", UintegerValue(rttUs));
        Config::SetDefault("ns3::TcpSocketState::MaxPacingRate", DataRateValue(DataRate(hc)));
        Config::SetDefault("ns3::TcpSocketState::PaceInitialWindow", BooleanValue(true));
    }
    Routes();
    NodeContainer all = NodeContainer::GetGlobal();
    for (NodeContainer::Iterator it = all.Begin(); it != all.End(); ++it)
    {
        (*it)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Drop", MakeCallback(&IpDrop));
        if (getenv("DCCSIM_TRACE_FLOW"))
        {
            traceFlow = atoi(getenv("DCCSIM_TRACE_FLOW"));
            (*it)->GetObject<Ipv4L3Protocol>()->TraceConnect("Tx", "tx", MakeCallback(&TraceIp));
            (*it)->GetObject<Ipv4L3Protocol>()->TraceConnect("Rx", "rx", MakeCallback(&TraceIp));
        }
    }
    /* every call into hpcc's or ldcp's controller (sim/dcc_acktrace.h) */
    if (getenv("DCCSIM_ACKTRACE"))
    {
        std::ostringstream h;
        h << "cc=" << g.cc << " topo=" << g.topo << " workload=" << g.workload << " rate=" << g.rate
          << " seed=" << g.seed;
        if (dcc_acktrace_open(getenv("DCCSIM_ACKTRACE"), h.str().c_str()))
            NS_FATAL_ERROR("DCCSIM_ACKTRACE: cannot write " << getenv("DCCSIM_ACKTRACE"));
    }
    Workload();
    Simulator::Schedule(Seconds(0), &Sample);
    if (g.workload == "poisson")
    {
        winS = g.secs;
        Simulator::Schedule(Seconds(0.001), &SnapTx, 0);
        Simulator::Schedule(Seconds(0.001 + g.secs), &SnapTx, 1);
    }
    else if (g.workload == "long")
    {
        winS = g.secs / 2;
        Simulator::Schedule(Seconds(0.001 + g.secs / 2), &SnapTx, 0);
        Simulator::Schedule(Seconds(0.001 + g.secs - 1e-9), &SnapTx, 1);
    }

    double stop;
    if (g.workload == "long")
        stop = endTime;
    else
    {
        double last = 0;
        for (const Flow& f : flows)
            last = std::max(last, f.at);
        stop = last + g.drain;
    }
    /* stop early once every flow has finished */
    std::function<void()> check = [&]() {
        if (g.workload != "long" &&
            std::all_of(flows.begin(), flows.end(), [](const Flow& f) { return f.done; }))
        {
            Simulator::Stop();
            return;
        }
        Simulator::Schedule(MicroSeconds(100), check);
    };
    Simulator::Schedule(MicroSeconds(100), check);
    Simulator::Stop(Seconds(stop));
    auto w0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    double simS = Simulator::Now().GetSeconds();
    Report(wall, simS);
    Simulator::Destroy();
    dcc_acktrace_close();
    return 0;
}
