/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CSIG in the ns-3 model (Documentation/sim.rst):
 *
 *   CsigTag        a packet tag standing in for the L2 tag (include/csig.h)
 *   CsigEchoTag    one standing in for tcp_csig_opt's TCP option, the
 *                  receiver's reflection of the last tag it received
 *   CsigQueueDisc  a switch (or host NIC) egress port: drop-tail in bytes,
 *                  optional ECN marking at K, and the CSIG port
 *                  (include/csig_port.h): insert (a host's first hop),
 *                  compare-and-replace (every port)
 *   CsigHost       per node: the receiver's record of each flow's last
 *                  tag, which its port reflects on the ACKs, and the
 *                  sender's store of the newest echoed sample per flow,
 *                  fed by an Rx hook that runs before TCP sees the ACK
 */
#ifndef DCCSIM_CSIG_MODEL_H
#define DCCSIM_CSIG_MODEL_H

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/traffic-control-module.h"

#include <array>
#include <deque>
#include <list>
#include <map>

extern "C" {
#include "csig.h"
#include "csig_port.h"
}

namespace ns3
{

/* A TCP/IPv4 flow as its data travels: source, destination. */
struct FlowKey
{
    uint32_t src = 0, dst = 0;
    uint16_t sport = 0, dport = 0;

    FlowKey Reverse() const { return FlowKey{dst, src, dport, sport}; }
    bool operator<(const FlowKey& o) const
    {
        if (src != o.src)
            return src < o.src;
        if (dst != o.dst)
            return dst < o.dst;
        if (sport != o.sport)
            return sport < o.sport;
        return dport < o.dport;
    }
    bool operator==(const FlowKey& o) const
    {
        return src == o.src && dst == o.dst && sport == o.sport && dport == o.dport;
    }
    uint32_t Hash() const;
};

/* A tag's fields (struct csig_fields' subset the model carries). */
class CsigTag : public Tag
{
  public:
    uint8_t format = CSIG_FMT_COMPACT;
    uint8_t type = CSIG_T_U;
    uint16_t lm = 0;
    uint32_t s = 0;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;
};

class CsigEchoTag : public CsigTag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
};

/* The port's counters (enum csig_counter's subset) and its queue record. */
struct CsigPortStats
{
    uint64_t pkts = 0, tagged = 0, replaced = 0, kept = 0, inserted = 0,
             echoed = 0, drops = 0, marks = 0, txBytes = 0, txPkts = 0;
    uint64_t qmaxBytes = 0;
    std::array<uint64_t, CSIG_QHIST_N> qhist{}; /* by ns of queue found */
};

class CsigHost;

/*
 * A switch's shared buffer: a port admits a packet while its queue stays
 * below alpha times the buffer still free (the dynamic threshold of
 * Choudhury and Hahne, as shared-buffer datacenter switches do).
 */
struct CsigSharedBuffer : public SimpleRefCount<CsigSharedBuffer>
{
    uint64_t total = 0, used = 0, peak = 0;
    double alpha = 1.0;
};

class CsigQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    CsigQueueDisc();
    ~CsigQueueDisc() override;

    /*
     * The link this port drains into (its capacity is C), the bytes the
     * link adds to each IP packet (PPP: 2), and the host whose flows it
     * inserts tags for and echoes them on (a host's NIC; 0 on a switch).
     */
    void SetLink(uint64_t bps, uint32_t l2Overhead);
    void SetHost(Ptr<CsigHost> host) { m_host = host; }
    void SetSharedBuffer(Ptr<CsigSharedBuffer> b) { m_shared = b; }
    void SetName(const std::string& n) { m_name = n; }
    const std::string& GetName() const { return m_name; }

    const CsigPortStats& Stats() const { return m_stats; }
    /* the queue's histogram from now on (a measured window's start) */
    void ResetQueueHist() { m_stats.qhist.fill(0); }
    const struct csig_port_cfg& Cfg() const { return m_cfg; }
    const struct csig_port_state& Model() const { return m_st; }
    /* U of the port's last rate window, canonical units (the tag's value
     * before quantisation) */
    uint32_t CurrentU() const;
    /* the queue (ns of delay) at percentile @p of the packets that arrived */
    double QueuePctUs(double p) const;
    uint64_t QueueBytes() const { return Backlog(); }

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    void ModelUpdate(uint64_t now, uint64_t qAhead);
    uint64_t Backlog() const { return m_fq ? m_fqBytes : GetNBytes(); }
    bool FqEnqueue(Ptr<QueueDiscItem> item);
    Ptr<QueueDiscItem> FqDequeue();
    void Transit(CsigTag& t, uint64_t qAhead, uint32_t len);

    struct csig_port_cfg m_cfg;
    struct csig_port_state m_st;
    CsigPortStats m_stats;
    Ptr<CsigHost> m_host;
    Ptr<CsigSharedBuffer> m_shared;
    std::string m_name;
    uint32_t m_ecnK;       /* bytes; 0: no marking */
    uint32_t m_ecnKMax;    /* WRED's K_max, bytes; 0: a step at K */
    double m_ecnPMax;      /* WRED's P_max */
    Ptr<UniformRandomVariable> m_rnd; /* WRED's draws */
    bool m_csig;           /* compare-and-replace */
    bool m_insert;         /* tag the host's TCP data */
    uint32_t m_insType;    /* type inserted */
    uint32_t m_insFormat;
    uint64_t m_tNs, m_intervalNs;
    uint32_t m_l2;
    uint16_t m_lm;
    uint64_t m_txEndNs = 0; /* the link has sent what was dequeued by then */
    /*
     * A host's NIC: flows served round-robin by bytes (DRR, a frame's
     * quantum) in CSIG_FQ_BUCKETS buckets of their 4-tuple's hash, as
     * Debian's default qdisc (fq_codel) serves them, without CoDel.
     */
    static constexpr uint32_t kFqBuckets = 1024;
    bool m_fq;
    uint64_t m_fqBytes = 0;
    struct Bucket
    {
        std::deque<Ptr<QueueDiscItem>> q;
        int64_t deficit = 0;
        bool active = false;
    };
    std::vector<Bucket> m_buckets;
    std::list<uint32_t> m_active;
};

/* The newest echoed sample of a flow, at its sender. */
struct CsigSample
{
    uint8_t format = 0, type = 0;
    uint16_t lm = 0;
    uint32_t s = 0;
    uint32_t value = 0; /* csig_decode(): canonical units */
    Time at;            /* arrival of the ACK that carried it */
    uint64_t n = 0;     /* samples received for the flow */
};

class CsigHost : public Object
{
  public:
    static TypeId GetTypeId();

    /* Hook the node's Ipv4L3Protocol Rx trace (before TCP sees a packet). */
    void Install(Ptr<Node> node, const struct csig_quant& q);

    /* the receiver: the last tag of @data_flow's data, for the echo */
    bool LastRx(const FlowKey& dataFlow, CsigTag& t) const;
    /* the sender: the newest echoed sample of its flow @k (data direction) */
    const CsigSample* Sample(const FlowKey& k) const;

    /*
     * A congestion control finds its socket's samples through the flow
     * its socket carries: the application binds the object it gave the
     * socket (TcpSocketBase::SetCongestionControlAlgorithm) to the flow
     * once the socket is bound, and the object looks itself up.
     */
    static void Bind(const void* cc, Ptr<CsigHost> host, const FlowKey& k);
    static void Unbind(const void* cc);
    static const CsigSample* SampleFor(const void* cc);
    static bool IsBound(const void* cc);

    uint64_t echoesRx = 0, tagsRx = 0;

  private:
    void Rx(Ptr<const Packet> p, Ptr<Ipv4> ipv4, uint32_t ifc);

    struct csig_quant m_quant;
    std::map<FlowKey, CsigTag> m_rx;
    std::map<FlowKey, CsigSample> m_samples;
};

/* Parse an IPv4 packet (header included) as TCP: its flow, payload bytes. */
bool ParseTcp(Ptr<const Packet> p, FlowKey& k, uint32_t& payload, uint8_t& flags);

} // namespace ns3

#endif
