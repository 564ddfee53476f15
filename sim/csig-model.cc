// SPDX-License-Identifier: GPL-2.0
/*
 * CSIG in the ns-3 model: tags, the port, the hosts' reflection and
 * sample store (csig-model.h, Documentation/sim.rst).  The port's
 * arithmetic is include/csig_port.h's, the code the BPF port
 * (tools/bpf/csig_port.bpf.c) runs; only its input differs: the real
 * queue of the ns-3 port instead of the BPF program's shadow model.
 */
#include "csig-model.h"
#include "csig_cfg.h"

#include "ns3/ipv4-queue-disc-item.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CsigModel");

uint32_t
FlowKey::Hash() const
{
    /* a 32-bit mix of the 4-tuple (murmur3's finaliser on each word) */
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (uint64_t w : {(uint64_t)src, (uint64_t)dst, ((uint64_t)sport << 16) | dport})
    {
        h ^= w + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
    }
    return (uint32_t)h;
}

/* --- tags --- */

TypeId
CsigTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CsigTag").SetParent<Tag>().AddConstructor<CsigTag>();
    return tid;
}

TypeId
CsigTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
CsigTag::GetSerializedSize() const
{
    return 8;
}

void
CsigTag::Serialize(TagBuffer i) const
{
    i.WriteU8(format);
    i.WriteU8(type);
    i.WriteU16(lm);
    i.WriteU32(s);
}

void
CsigTag::Deserialize(TagBuffer i)
{
    format = i.ReadU8();
    type = i.ReadU8();
    lm = i.ReadU16();
    s = i.ReadU32();
}

void
CsigTag::Print(std::ostream& os) const
{
    os << "csig fmt=" << (int)format << " T=" << (int)type << " S=" << s << " LM=" << lm;
}

TypeId
CsigEchoTag::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CsigEchoTag").SetParent<Tag>().AddConstructor<CsigEchoTag>();
    return tid;
}

TypeId
CsigEchoTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

bool
ParseTcp(Ptr<const Packet> p, FlowKey& k, uint32_t& payload, uint8_t& flags)
{
    Ptr<Packet> c = p->Copy();
    Ipv4Header ih;
    TcpHeader th;

    if (!c->RemoveHeader(ih) || ih.GetProtocol() != 6 || ih.GetFragmentOffset())
        return false;
    c->RemoveHeader(th);
    k.src = ih.GetSource().Get();
    k.dst = ih.GetDestination().Get();
    k.sport = th.GetSourcePort();
    k.dport = th.GetDestinationPort();
    payload = c->GetSize();
    flags = th.GetFlags();
    return true;
}

/* --- the port --- */

NS_OBJECT_ENSURE_REGISTERED(CsigQueueDisc);

TypeId
CsigQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CsigQueueDisc")
            .SetParent<QueueDisc>()
            .AddConstructor<CsigQueueDisc>()
            .AddAttribute("MaxSize",
                          "The port's buffer (bytes)",
                          QueueSizeValue(QueueSize("1MB")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnK",
                          "Mark ECT packets CE that find at least K bytes queued (0: off)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CsigQueueDisc::m_ecnK),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnKMax",
                          "WRED: mark with a probability rising from 0 at EcnK to EcnPMax "
                          "at EcnKMax bytes, and 1 from there (0: a step at EcnK)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CsigQueueDisc::m_ecnKMax),
                          MakeUintegerChecker<uint32_t>(0, CSIG_ECN_K_MAX))
            .AddAttribute("EcnPMax",
                          "WRED: the marking probability at EcnKMax",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&CsigQueueDisc::m_ecnPMax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("Csig",
                          "Compare-and-replace the CSIG tags of passing packets",
                          BooleanValue(true),
                          MakeBooleanAccessor(&CsigQueueDisc::m_csig),
                          MakeBooleanChecker())
            .AddAttribute("Insert",
                          "Tag the host's TCP data segments (a sender's first hop)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&CsigQueueDisc::m_insert),
                          MakeBooleanChecker())
            .AddAttribute("InsType",
                          "Signal type inserted (enum csig_type)",
                          UintegerValue(CSIG_T_U),
                          MakeUintegerAccessor(&CsigQueueDisc::m_insType),
                          MakeUintegerChecker<uint32_t>(0, 7))
            .AddAttribute("InsFormat",
                          "Tag format inserted (0 compact, 1 expanded)",
                          UintegerValue(CSIG_FMT_COMPACT),
                          MakeUintegerAccessor(&CsigQueueDisc::m_insFormat),
                          MakeUintegerChecker<uint32_t>(0, 1))
            .AddAttribute("T",
                          "T of U = q / (C * T) + txRate / C, ns",
                          UintegerValue(CSIG_DEF_T_NS),
                          MakeUintegerAccessor(&CsigQueueDisc::m_tNs),
                          MakeUintegerChecker<uint64_t>(CSIG_MIN_T_NS, CSIG_MAX_T_NS))
            .AddAttribute("Interval",
                          "The tx rate's window, ns",
                          UintegerValue(CSIG_DEF_INTERVAL_NS),
                          MakeUintegerAccessor(&CsigQueueDisc::m_intervalNs),
                          MakeUintegerChecker<uint64_t>(CSIG_MIN_INTERVAL_NS,
                                                        CSIG_MAX_INTERVAL_NS))
            .AddAttribute("Fq",
                          "Serve flows round-robin (a host's NIC; no ECN, no shared buffer)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&CsigQueueDisc::m_fq),
                          MakeBooleanChecker())
            .AddAttribute("Lm",
                          "Locator written on replace",
                          UintegerValue(0),
                          MakeUintegerAccessor(&CsigQueueDisc::m_lm),
                          MakeUintegerChecker<uint16_t>());
    return tid;
}

CsigQueueDisc::CsigQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE, QueueSizeUnit::BYTES),
      m_ecnK(0),
      m_ecnKMax(0),
      m_ecnPMax(1.0),
      m_csig(true),
      m_insert(false),
      m_insType(CSIG_T_U),
      m_insFormat(CSIG_FMT_COMPACT),
      m_tNs(CSIG_DEF_T_NS),
      m_intervalNs(CSIG_DEF_INTERVAL_NS),
      m_l2(2),
      m_lm(0),
      m_fq(false)
{
    dccsim_csig_default_cfg(&m_cfg);
    memset(&m_st, 0, sizeof(m_st));
}

CsigQueueDisc::~CsigQueueDisc() = default;

void
CsigQueueDisc::SetLink(uint64_t bps, uint32_t l2Overhead)
{
    csig_port_set_capacity(&m_cfg, bps / 1000);
    m_l2 = l2Overhead;
}

bool
CsigQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() || GetNPacketFilters())
        return false;
    if (GetNInternalQueues() == 0)
        AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
            "MaxSize",
            QueueSizeValue(GetMaxSize())));
    if (m_ecnKMax && !csig_ecn_cfg_valid(m_ecnK, m_ecnKMax, (uint32_t)(m_ecnPMax * CSIG_ECN_P_ONE),
                                         m_ecnKMax))
        return false;
    return GetNInternalQueues() == 1 && m_cfg.capacity_kbps;
}

void
CsigQueueDisc::InitializeParams()
{
    m_cfg.t_ns = m_tNs;
    m_cfg.interval_ns = m_intervalNs;
    m_cfg.flags &= ~CSIG_CFG_LM_IFINDEX;
    m_cfg.lm = m_lm;
    m_cfg.ins_types = 1U << m_insType;
    m_cfg.ins_format = m_insFormat;
    /* WRED: K_min is EcnK; not-ECT packets keep drop-tail (kdrop unused) */
    if (m_ecnKMax)
    {
        m_cfg.ecn_kmin = m_ecnK;
        m_cfg.ecn_kmax = m_ecnKMax;
        m_cfg.ecn_pmax = (uint32_t)(m_ecnPMax * CSIG_ECN_P_ONE);
        m_cfg.ecn_kdrop = m_ecnKMax;
        m_rnd = CreateObject<UniformRandomVariable>();
    }
}

/*
 * tools/bpf/csig_port.bpf.c's model_update() on the port's real queue:
 * @qAhead bytes queued ahead of the arriving packet.  The rate window is
 * closed by the first packet past its end; it snapshots the queue ahead
 * of that packet for U's queue term (csig_port_u_queue()).
 */
void
CsigQueueDisc::ModelUpdate(uint64_t now, uint64_t qAhead)
{
    uint64_t d = csig_port_svc_ns(&m_cfg, qAhead);
    uint64_t w = now > m_st.win_start ? now - m_st.win_start : 0;

    m_st.d_last = d;
    if (d > m_st.d_max)
        m_st.d_max = d;
    m_stats.qhist[csig_qhist_index(d)]++;
    if (qAhead > m_stats.qmaxBytes)
        m_stats.qmaxBytes = qAhead;
    if (w >= m_cfg.interval_ns && w)
    {
        /*
         * What the link has sent by now: what was dequeued less what of
         * it is still on its way out (the frames go out back to back from
         * their dequeue), as the BPF port's shadow model counts it, not in
         * whole frames: a frame of 9000 bytes is 8% of a 9 us window at
         * 100 Gbit/s.
         */
        uint64_t sent = m_stats.txBytes, left = 0;

        if (m_txEndNs > now)
            left = csig_port_bytes(&m_cfg, m_txEndNs - now);
        sent -= std::min<uint64_t>(sent - m_st.win_tx, left);
        uint64_t bytes = sent - m_st.win_tx;

        if (bytes > (1ULL << 40))
            bytes = 1ULL << 40;
        m_st.rate_kbps = bytes * 8000000ULL / w;
        m_st.win_tx = sent;
        m_st.win_start = now;
        m_st.d_win_prev = m_st.d_win;
        m_st.d_win = d;
    }
}

uint32_t
CsigQueueDisc::CurrentU() const
{
    return csig_port_signal(&m_cfg, CSIG_T_U, csig_port_u_queue(&m_cfg, &m_st), m_st.rate_kbps);
}

/* tools/bpf/csig_port.bpf.c's transit_tag(), on the packet tag */
void
CsigQueueDisc::Transit(CsigTag& t, uint64_t qAhead, uint32_t len)
{
    uint32_t value, local;
    uint64_t q = qAhead + len; /* PD, ABW: the packet's own frame too */

    if (!csig_type_known(t.type) || !(m_cfg.types & (1U << t.type)))
        return;
    if (t.type == CSIG_T_U)
        q = csig_port_u_queue(&m_cfg, &m_st);
    value = csig_port_signal(&m_cfg, t.type, q, m_st.rate_kbps);
    local = csig_encode(&m_cfg.quant, t.format, t.type, value);
    if (!csig_should_replace(t.type, t.s, local))
    {
        m_stats.kept++;
        return;
    }
    t.s = local;
    t.lm = t.format == CSIG_FMT_COMPACT ? (m_cfg.lm & CSIG_COMPACT_LM_MASK) : m_cfg.lm;
    m_stats.replaced++;
}

bool
CsigQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t qAhead = Backlog();
    uint32_t len = item->GetSize() + m_l2;
    Ptr<Packet> p = item->GetPacket();
    CsigTag t;
    bool tagged;

    m_stats.pkts++;
    if (qAhead + item->GetSize() > GetMaxSize().GetValue() ||
        (m_shared && (qAhead + item->GetSize() > m_shared->alpha * (m_shared->total - m_shared->used) ||
                      m_shared->used + item->GetSize() > m_shared->total)))
    {
        m_stats.drops++;
        DropBeforeEnqueue(item, "buffer full");
        return false;
    }
    if (m_cfg.ecn_kmax)
    {
        /* WRED (ldcp's switches): include/csig_port.h's ramp, as the BPF port */
        if (csig_port_wred(&m_cfg, qAhead, m_rnd->GetInteger(0, UINT32_MAX)) &&
            Mark(item, "WRED"))
            m_stats.marks++;
    }
    else if (m_ecnK && qAhead >= m_ecnK && Mark(item, "K"))
        m_stats.marks++;
    ModelUpdate(now, qAhead);

    tagged = p->PeekPacketTag(t);
    if (m_host)
    {
        Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
        TcpHeader th;

        if (ip && ip->GetHeader().GetProtocol() == 6 && p->PeekHeader(th))
        {
            const Ipv4Header& ih = ip->GetHeader();
            FlowKey k{ih.GetSource().Get(), ih.GetDestination().Get(), th.GetSourcePort(),
                      th.GetDestinationPort()};
            CsigTag e;

            /* the option's reflection: every segment of the reverse flow */
            if (m_host->LastRx(k.Reverse(), e))
            {
                CsigEchoTag et;

                et.format = e.format;
                et.type = e.type;
                et.lm = e.lm;
                et.s = e.s;
                p->ReplacePacketTag(et);
                m_stats.echoed++;
            }
            if (m_insert && !tagged && p->GetSize() > th.GetSerializedSize())
            {
                t.format = m_insFormat;
                t.type = m_insType;
                t.s = csig_s_identity(t.format, t.type);
                t.lm = 0;
                tagged = true;
                m_stats.inserted++;
                p->AddPacketTag(t);
            }
        }
    }
    if (tagged && m_csig)
    {
        m_stats.tagged++;
        Transit(t, qAhead, len);
        p->ReplacePacketTag(t);
    }
    uint32_t sz = item->GetSize();
    bool ok = m_fq ? FqEnqueue(item) : GetInternalQueue(0)->Enqueue(item);
    if (!ok)
        m_stats.drops++;
    else if (m_shared)
    {
        m_shared->used += sz;
        m_shared->peak = std::max(m_shared->peak, m_shared->used);
    }
    return ok;
}

Ptr<QueueDiscItem>
CsigQueueDisc::DoDequeue()
{
    Ptr<QueueDiscItem> item = m_fq ? FqDequeue() : GetInternalQueue(0)->Dequeue();

    if (item)
    {
        uint64_t now = Simulator::Now().GetNanoSeconds();

        m_stats.txBytes += item->GetSize() + m_l2;
        m_stats.txPkts++;
        m_txEndNs = std::max(m_txEndNs, now) + csig_port_svc_ns(&m_cfg, item->GetSize() + m_l2);
        if (m_shared)
            m_shared->used -= item->GetSize();
    }
    return item;
}

bool
CsigQueueDisc::FqEnqueue(Ptr<QueueDiscItem> item)
{
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    FlowKey k;
    TcpHeader th;

    if (m_buckets.empty())
        m_buckets.resize(kFqBuckets);
    if (ip)
    {
        k.src = ip->GetHeader().GetSource().Get();
        k.dst = ip->GetHeader().GetDestination().Get();
        if (ip->GetHeader().GetProtocol() == 6 && item->GetPacket()->PeekHeader(th))
        {
            k.sport = th.GetSourcePort();
            k.dport = th.GetDestinationPort();
        }
    }
    uint32_t b = k.Hash() % kFqBuckets;
    Bucket& bk = m_buckets[b];
    bk.q.push_back(item);
    m_fqBytes += item->GetSize();
    if (!bk.active)
    {
        bk.active = true;
        bk.deficit = 0;
        m_active.push_back(b);
    }
    return true;
}

Ptr<QueueDiscItem>
CsigQueueDisc::FqDequeue()
{
    while (!m_active.empty())
    {
        uint32_t b = m_active.front();
        Bucket& bk = m_buckets[b];

        if (bk.q.empty())
        {
            bk.active = false;
            m_active.pop_front();
            continue;
        }
        if (bk.deficit < (int64_t)bk.q.front()->GetSize())
        {
            bk.deficit += 1600; /* a frame's quantum */
            m_active.splice(m_active.end(), m_active, m_active.begin());
            continue;
        }
        Ptr<QueueDiscItem> item = bk.q.front();
        bk.q.pop_front();
        bk.deficit -= item->GetSize();
        m_fqBytes -= item->GetSize();
        return item;
    }
    return nullptr;
}

double
CsigQueueDisc::QueuePctUs(double pct) const
{
    uint64_t n = 0, c = 0, want;

    for (uint64_t v : m_stats.qhist)
        n += v;
    if (!n)
        return 0;
    if (pct >= 100)
        return m_st.d_max / 1000.0;
    want = (uint64_t)std::ceil(pct / 100.0 * n);
    for (uint32_t b = 0; b < CSIG_QHIST_N; b++)
    {
        c += m_stats.qhist[b];
        if (c >= want && c)
        {
            /* the bucket's upper edge (at most 12.5% above its low edge) */
            uint64_t hi = b + 1 < CSIG_QHIST_N ? csig_qhist_low(b + 1) : m_st.d_max;
            return std::min<uint64_t>(hi, m_st.d_max) / 1000.0;
        }
    }
    return m_st.d_max / 1000.0;
}

/* --- hosts --- */

NS_OBJECT_ENSURE_REGISTERED(CsigHost);

TypeId
CsigHost::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CsigHost").SetParent<Object>().AddConstructor<CsigHost>();
    return tid;
}

void
CsigHost::Install(Ptr<Node> node, const struct csig_quant& q)
{
    m_quant = q;
    node->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
        "Rx",
        MakeCallback(&CsigHost::Rx, this));
}

/*
 * Ipv4L3Protocol's Rx: a packet from the device, before routing hands it
 * to TCP (the same call chain), so that a congestion control that reads
 * the store while TCP processes this ACK finds the ACK's own sample.
 */
void
CsigHost::Rx(Ptr<const Packet> p, Ptr<Ipv4> ipv4, uint32_t ifc)
{
    CsigTag t;
    CsigEchoTag e;
    bool hasT = p->PeekPacketTag(t), hasE = p->PeekPacketTag(e);
    FlowKey k;
    uint32_t payload;
    uint8_t flags;

    if (!hasT && !hasE)
        return;
    if (!ParseTcp(p, k, payload, flags))
        return;
    if (hasT && payload)
    {
        m_rx[k] = t;
        tagsRx++;
    }
    if (hasE)
    {
        CsigSample& s = m_samples[k.Reverse()];

        s.format = e.format;
        s.type = e.type;
        s.lm = e.lm;
        s.s = e.s;
        s.value = csig_decode(&m_quant, e.format, e.type, e.s);
        s.at = Simulator::Now();
        s.n++;
        echoesRx++;
    }
}

bool
CsigHost::LastRx(const FlowKey& k, CsigTag& t) const
{
    auto it = m_rx.find(k);

    if (it == m_rx.end())
        return false;
    t = it->second;
    return true;
}

const CsigSample*
CsigHost::Sample(const FlowKey& k) const
{
    auto it = m_samples.find(k);

    return it == m_samples.end() ? nullptr : &it->second;
}

namespace
{
std::map<const void*, std::pair<Ptr<CsigHost>, FlowKey>>&
Bindings()
{
    static std::map<const void*, std::pair<Ptr<CsigHost>, FlowKey>> b;
    return b;
}
} // namespace

void
CsigHost::Bind(const void* cc, Ptr<CsigHost> host, const FlowKey& k)
{
    Bindings()[cc] = {host, k};
}

void
CsigHost::Unbind(const void* cc)
{
    Bindings().erase(cc);
}

bool
CsigHost::IsBound(const void* cc)
{
    return Bindings().count(cc) != 0;
}

const CsigSample*
CsigHost::SampleFor(const void* cc)
{
    auto it = Bindings().find(cc);

    return it == Bindings().end() ? nullptr : it->second.first->Sample(it->second.second);
}

} // namespace ns3
