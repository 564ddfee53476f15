// SPDX-License-Identifier: GPL-2.0
/*
 * ns3::TcpHpccDcc ("hpcc") and ns3::TcpLdcpDcc ("ldcp"): the shared
 * controllers of the modules, include/hpcc_ctl.h and include/ldcp_ctl.h,
 * run by ns-3's TCP.  The controllers are compiled as C in
 * sim/hpcc_glue.c and sim/ldcp_glue.c over a struct sock that holds a
 * copy of TCP's state (struct dcc_sim_io); these classes copy ns-3's
 * TcpSocketState into it before each call and back after it.  Nothing
 * of the algorithms is written here.  Documentation/sim.rst.
 */
#include "tcp-dcc-sim.h"

#include "csig-model.h"
#include "dcc_acktrace.h"
#include "dcc_ctl.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpDccSim");
NS_OBJECT_ENSURE_REGISTERED(TcpDccSim);
NS_OBJECT_ENSURE_REGISTERED(TcpHpccDcc);
NS_OBJECT_ENSURE_REGISTERED(TcpLdcpDcc);

/*
 * DCCSIM_ACKTRACE (sim/dcc_acktrace.h): the call with the inputs it had
 * and what it left, for tools/ackcost.c to make again.
 */
template <typename F>
static void
Traced(const void* h, const char* op, int a, int b, struct dcc_sim_io* io, F call)
{
    if (!dcc_acktrace_on())
    {
        call();
        return;
    }
    struct dcc_sim_io in = *io;
    call();
    dcc_acktrace_call(h, op, a, b, &in, io);
}

/* a controller's parameters, ahead of its calls: the cfg's __u32 fields */
template <typename C>
static void
TracedCfg(const void* h, const C* c)
{
    static_assert(sizeof(C) % sizeof(__u32) == 0, "a cfg of __u32 fields");
    if (dcc_acktrace_on())
        dcc_acktrace_cfg(h, (const __u32*)c, sizeof(C) / sizeof(__u32));
}

TypeId
TcpDccSim::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpDccSim").SetParent<TcpCongestionOps>().SetGroupName("Internet");
    return tid;
}

void
TcpDccSim::Attach(Ptr<TcpSocketBase> s)
{
    /* Linux's in_ack_event(CA_ACK_ECE): the socket's segments as TCP gets them */
    s->TraceConnectWithoutContext(
        "Rx",
        MakeCallback(+[](TcpDccSim* cc, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
            if (h.GetFlags() & TcpHeader::ACK)
                cc->AckEvent(h.GetFlags() & TcpHeader::ECE);
        }).Bind(this));
}

/*
 * ns-3 calls Init() when the socket gets the algorithm, before it has a
 * flow; Linux calls init once the handshake is done (tcp_init_transfer()),
 * which in ns-3 is the socket's CongestionStateSet(CA_OPEN) of
 * ESTABLISHED, before the first data segment.  The controller starts
 * there (or at the first ACK, should it not come).  Returns true when
 * the call did no more than that.
 */
bool
TcpDccSim::Starts(Ptr<TcpSocketState> tcb, TcpSocketState::TcpCongState_t s)
{
    if (m_started)
        return false;
    if (s == TcpSocketState::CA_OPEN)
        Start(tcb);
    return true;
}

/* srtt as tcp_rtt_estimator() keeps it: srtt += (rtt - srtt) / 8 */
void
TcpDccSim::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    int64_t r = rtt.GetNanoSeconds();

    if (r <= 0)
        return;
    if (!m_srttNs)
        m_srttNs = r;
    else
        m_srttNs = m_srttNs - m_srttNs / 8 + r / 8;
}

void
TcpDccSim::In(Ptr<const TcpSocketState> tcb, struct dcc_sim_io* io)
{
    uint32_t mss = std::max<uint32_t>(tcb->m_segmentSize, 1);

    io->mss = mss;
    io->cwnd = tcb->m_cWnd.Get() / mss;
    /* ns-3's "none" (UINT32_MAX bytes) is Linux's TCP_INFINITE_SSTHRESH */
    io->ssthresh = tcb->m_ssThresh.Get() == UINT32_MAX
                       ? DCC_INFINITE_SSTHRESH
                       : std::min<uint32_t>(tcb->m_ssThresh.Get() / mss, DCC_INFINITE_SSTHRESH);
    io->clamp = m_clamp;
    io->srtt_us = (uint32_t)(m_srttNs / 1000);
    io->min_rtt_us = tcb->m_minRtt == Time::Max() ? ~0U : (uint32_t)tcb->m_minRtt.GetMicroSeconds();
    io->delivered = (uint32_t)(m_delivered / mss);
    io->packets_out = tcb->m_bytesInFlight.Get() / mss;
    io->snd_una = tcb->m_lastAckedSeq.GetValue();
    io->snd_nxt = tcb->m_nextTxSequence.Get().GetValue();
    io->rcv_nxt = tcb->m_rxBuffer ? tcb->m_rxBuffer->NextRxSequence().GetValue() : 0;
    /* ns-3's CA_OPEN .. CA_LOSS have Linux's numbers */
    io->ca_state = (uint8_t)tcb->m_congState.Get();
    /*
     * ECN: the socket's state once negotiated; at the start (ns-3 reads
     * the SYN-ACK's ECE after CongestionStateSet()) the socket's will
     */
    io->ecn_ok = tcb->m_ecnState.Get() != TcpSocketState::ECN_DISABLED ||
                 (!m_started && tcb->m_useEcn != TcpSocketState::Off);
    io->now_ns = Simulator::Now().GetNanoSeconds();
    io->max_pacing = tcb->m_maxPacingRate.GetBitRate() / 8;
}

void
TcpDccSim::Out(Ptr<TcpSocketState> tcb, const struct dcc_sim_io* io)
{
    uint32_t mss = std::max<uint32_t>(tcb->m_segmentSize, 1);

    if (tcb->m_cWnd.Get() / mss != io->cwnd)
        tcb->m_cWnd = io->cwnd * mss;
    tcb->m_ssThresh = (uint32_t)std::min<uint64_t>((uint64_t)io->ssthresh * mss, 0xffffffffU);
    /* paced once the controller has set a rate (none yet: not paced) */
    if (io->pacing)
    {
        tcb->m_pacing = true;
        tcb->m_pacingRate = DataRate(std::min<uint64_t>(io->pacing, io->max_pacing) * 8);
    }
}

/* --- hpcc --- */

TypeId
TcpHpccDcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpHpccDcc")
            .SetParent<TcpDccSim>()
            .SetGroupName("Internet")
            .AddConstructor<TcpHpccDcc>()
            .AddAttribute("LineRateMbps", "line_rate_mbps", UintegerValue(10000),
                          MakeUintegerAccessor(&TcpHpccDcc::m_lineRate),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("BaseRttUs", "base_rtt_us (T; 0: the flow's min RTT)", UintegerValue(0),
                          MakeUintegerAccessor(&TcpHpccDcc::m_baseRtt),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Eta", "eta, per cent", UintegerValue(95),
                          MakeUintegerAccessor(&TcpHpccDcc::m_eta),
                          MakeUintegerChecker<uint32_t>(1, 100))
            .AddAttribute("Nflows", "nflows (W_ai)", UintegerValue(16),
                          MakeUintegerAccessor(&TcpHpccDcc::m_nflows),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxStage", "max_stage", UintegerValue(5),
                          MakeUintegerAccessor(&TcpHpccDcc::m_maxStage),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("WAi", "w_ai, bytes (0: the draft's rule from Nflows)",
                          UintegerValue(0), MakeUintegerAccessor(&TcpHpccDcc::m_wAi),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("GrowPct", "grow_pct (0: off)", UintegerValue(90),
                          MakeUintegerAccessor(&TcpHpccDcc::m_growPct),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CommitSamples", "commit_samples", UintegerValue(2),
                          MakeUintegerAccessor(&TcpHpccDcc::m_commitSamples),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CommitWaitPct", "commit_wait_pct, of T", UintegerValue(100),
                          MakeUintegerAccessor(&TcpHpccDcc::m_commitWaitPct),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Csig", "the model's CSIG path serves the flow (negotiated)",
                          BooleanValue(true), MakeBooleanAccessor(&TcpHpccDcc::m_csig),
                          MakeBooleanChecker())
            .AddAttribute("Probe",
                          "TCP's CA_EVENT_TX_START reaches the controller (false: no probe "
                          "after idle, the model's comparison without it)",
                          BooleanValue(true), MakeBooleanAccessor(&TcpHpccDcc::m_probe),
                          MakeBooleanChecker());
    return tid;
}

TcpHpccDcc::TcpHpccDcc()
{
    dcc_sim_hpcc_defaults(&m_cfg);
}

TcpHpccDcc::TcpHpccDcc(const TcpHpccDcc& o)
    : TcpDccSim(o),
      m_cfg(o.m_cfg),
      m_lineRate(o.m_lineRate),
      m_baseRtt(o.m_baseRtt),
      m_eta(o.m_eta),
      m_nflows(o.m_nflows),
      m_maxStage(o.m_maxStage),
      m_wAi(o.m_wAi),
      m_growPct(o.m_growPct),
      m_commitSamples(o.m_commitSamples),
      m_commitWaitPct(o.m_commitWaitPct),
      m_csig(o.m_csig)
{
}

TcpHpccDcc::~TcpHpccDcc()
{
    if (m_h)
        dcc_sim_hpcc_free(m_h);
}

Ptr<TcpCongestionOps>
TcpHpccDcc::Fork()
{
    return CopyObject<TcpHpccDcc>(this);
}

/* hpcc_ctl_negotiated() and hpcc_ctl_read(): CsigHost::SampleFor(this) */
void
TcpHpccDcc::Telemetry(struct dcc_sim_io* io)
{
    const CsigSample* s = m_csig ? CsigHost::SampleFor(this) : nullptr;

    io->negotiated = m_csig && CsigHost::IsBound(this);
    io->have = 0;
    if (!s || !s->n)
        return;
    int slot = s->type == CSIG_T_ABWC ? 0 : s->type == CSIG_T_PD ? 1 : s->type == CSIG_T_U ? 2 : -1;
    if (slot < 0)
        return;
    io->sm[slot].format = s->format;
    io->sm[slot].type = s->type;
    io->sm[slot].lm = s->lm;
    io->sm[slot].s = s->s;
    io->sm[slot].t_ns = s->at.GetNanoSeconds();
    io->have = 1U << s->type;
}

void
TcpHpccDcc::Start(Ptr<TcpSocketState> tcb)
{
    m_started = true;
    if (!m_h)
    {
        m_cfg.line_rate_mbps = m_lineRate;
        m_cfg.base_rtt_us = m_baseRtt;
        m_cfg.eta = m_eta;
        m_cfg.nflows = m_nflows;
        m_cfg.max_stage = m_maxStage;
        m_cfg.w_ai = m_wAi;
        m_cfg.grow_pct = m_growPct;
        m_cfg.commit_samples = m_commitSamples;
        m_cfg.commit_wait_pct = m_commitWaitPct;
        m_h = dcc_sim_hpcc_new(&m_cfg);
        TracedCfg(m_h, &m_cfg);
    }
    struct dcc_sim_io* io = dcc_sim_hpcc_io(m_h);
    In(tcb, io);
    Telemetry(io);
    Traced(m_h, "init", 0, 0, io, [&] { dcc_sim_hpcc_init(m_h); });
    Out(tcb, io);
}

uint32_t
TcpHpccDcc::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    if (!m_h)
        return std::max(tcb->m_cWnd.Get() / 2, 2 * tcb->m_segmentSize);
    struct dcc_sim_io* io = dcc_sim_hpcc_io(m_h);
    In(tcb, io);
    io->prior_cwnd = io->cwnd;
    uint32_t ss = 0;
    Traced(m_h, "ssthresh", 0, 0, io, [&] { ss = dcc_sim_hpcc_ssthresh(m_h); });
    return ss * tcb->m_segmentSize;
}

void
TcpHpccDcc::CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t s)
{
    if (Starts(tcb, s) || s > TcpSocketState::CA_LOSS)
        return;
    struct dcc_sim_io* io = dcc_sim_hpcc_io(m_h);
    In(tcb, io);
    Traced(m_h, "set_state", s, 0, io, [&] { dcc_sim_hpcc_set_state(m_h, (uint8_t)s); });
}

void
TcpHpccDcc::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t ev)
{
    if (!m_h || ev > TcpSocketState::CA_EVENT_ECN_IS_CE ||
        (ev == TcpSocketState::CA_EVENT_TX_START && !m_probe))
        return;
    struct dcc_sim_io* io = dcc_sim_hpcc_io(m_h);
    In(tcb, io);
    Traced(m_h, "cwnd_event", ev, 0, io, [&] { dcc_sim_hpcc_cwnd_event(m_h, (int)ev); });
    /* a probe's window (hpcc_ctl_tx_start()), before the next segment */
    uint32_t mss = std::max<uint32_t>(tcb->m_segmentSize, 1);
    if (tcb->m_cWnd.Get() / mss != io->cwnd)
        tcb->m_cWnd = io->cwnd * mss;
}

void
TcpHpccDcc::CongControl(Ptr<TcpSocketState> tcb,
                        const TcpRateOps::TcpRateConnection& rc,
                        const TcpRateOps::TcpRateSample& rs)
{
    if (!m_started)
        Start(tcb);
    struct dcc_sim_io* io = dcc_sim_hpcc_io(m_h);
    m_delivered = rc.m_delivered;
    In(tcb, io);
    Telemetry(io);
    int acked = (int)(rs.m_ackedSacked / std::max<uint32_t>(tcb->m_segmentSize, 1));
    Traced(m_h, "update", acked, 0, io, [&] { dcc_sim_hpcc_update(m_h, acked); });
    Out(tcb, io);
}

std::vector<uint64_t>
TcpHpccDcc::Counters() const
{
    if (!m_h)
        return {};
    const struct dcc_sim_io* io = dcc_sim_hpcc_io(m_h);
    return std::vector<uint64_t>(io->ctr, io->ctr + DCC_SIM_HPCC_NCTR);
}

/* --- ldcp --- */

TypeId
TcpLdcpDcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpLdcpDcc")
            .SetParent<TcpDccSim>()
            .SetGroupName("Internet")
            .AddConstructor<TcpLdcpDcc>()
            .AddAttribute("BwMbps", "bw_mbps: the IW's line rate and fast start's pacing",
                          UintegerValue(10000), MakeUintegerAccessor(&TcpLdcpDcc::m_bw),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("BaseRttUs", "base_rtt_us: the IW's RTT", UintegerValue(100),
                          MakeUintegerAccessor(&TcpLdcpDcc::m_baseRtt),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("FastStart", "fast_start", UintegerValue(1),
                          MakeUintegerAccessor(&TcpLdcpDcc::m_fastStart),
                          MakeUintegerChecker<uint32_t>(0, 1));
    return tid;
}

TcpLdcpDcc::TcpLdcpDcc()
{
    /* tcp_ldcp.c's defaults */
    m_cfg.alpha_milli = 1000;
    m_cfg.beta_milli = 500;
    m_cfg.gamma_div = 8;
    m_cfg.bw_mbps = 10000;
    m_cfg.base_rtt_us = 100;
    m_cfg.fast_start = 1;
    m_cfg.below_one_inc = 1;
    m_cfg.ack_every = 1;
}

void*
TcpLdcpDcc::New()
{
    m_cfg.bw_mbps = m_bw;
    m_cfg.base_rtt_us = m_baseRtt;
    m_cfg.fast_start = m_fastStart;
    void* h = dcc_sim_ldcp_new(&m_cfg);
    TracedCfg(h, &m_cfg);
    return h;
}

TcpLdcpDcc::TcpLdcpDcc(const TcpLdcpDcc& o)
    : TcpDccSim(o),
      m_cfg(o.m_cfg),
      m_bw(o.m_bw),
      m_baseRtt(o.m_baseRtt),
      m_fastStart(o.m_fastStart)
{
}

TcpLdcpDcc::~TcpLdcpDcc()
{
    if (m_h)
        dcc_sim_ldcp_free(m_h);
}

Ptr<TcpCongestionOps>
TcpLdcpDcc::Fork()
{
    return CopyObject<TcpLdcpDcc>(this);
}

uint32_t
TcpLdcpDcc::IwBytes() const
{
    if (!m_h)
        return 0;
    return (uint32_t)(((uint64_t)dcc_sim_ldcp_iw(m_h) * dcc_sim_ldcp_io(m_h)->mss) >> 16);
}

std::vector<uint64_t>
TcpLdcpDcc::Counters() const
{
    if (!m_h)
        return {};
    const struct dcc_sim_io* io = dcc_sim_ldcp_io(m_h);
    return std::vector<uint64_t>(io->ctr, io->ctr + DCC_SIM_LDCP_NCTR);
}

void
TcpLdcpDcc::AckEvent(bool ece)
{
    m_ece = ece;
}

void
TcpLdcpDcc::Start(Ptr<TcpSocketState> tcb)
{
    if (!m_h)
        m_h = New();
    struct dcc_sim_io* io = dcc_sim_ldcp_io(m_h);
    In(tcb, io); /* before m_started: ecn_ok from the socket's will */
    m_started = true;
    Traced(m_h, "init", 0, 0, io, [&] { dcc_sim_ldcp_init(m_h); });
    Out(tcb, io);
}

uint32_t
TcpLdcpDcc::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    if (!m_h)
        return std::max(tcb->m_cWnd.Get() / 2, 2 * tcb->m_segmentSize);
    struct dcc_sim_io* io = dcc_sim_ldcp_io(m_h);
    In(tcb, io);
    uint32_t ss = 0;
    Traced(m_h, "ssthresh", 0, 0, io, [&] { ss = dcc_sim_ldcp_ssthresh(m_h); });
    return ss * tcb->m_segmentSize;
}

void
TcpLdcpDcc::CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t s)
{
    if (Starts(tcb, s) || s > TcpSocketState::CA_LOSS)
        return;
    struct dcc_sim_io* io = dcc_sim_ldcp_io(m_h);
    In(tcb, io);
    Traced(m_h, "set_state", s, 0, io, [&] { dcc_sim_ldcp_set_state(m_h, (uint8_t)s); });
    Out(tcb, io);
}

/*
 * The receiver's CE events (ns-3 sends CA_EVENT_ECN_IS_CE / NO_CE per
 * data segment of an ECN flow): the controller's demand for ECE onto the
 * socket's ECN state, which puts ECE on the next ACK.
 */
void
TcpLdcpDcc::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t ev)
{
    if (ev > TcpSocketState::CA_EVENT_ECN_IS_CE)
        return;
    if (!m_h)
    {
        /* a receiver's socket: its controller is only the echo */
        if (ev != TcpSocketState::CA_EVENT_ECN_IS_CE && ev != TcpSocketState::CA_EVENT_ECN_NO_CE)
            return;
        m_h = New();
    }
    struct dcc_sim_io* io = dcc_sim_ldcp_io(m_h);
    In(tcb, io);
    Traced(m_h, "cwnd_event", ev, 0, io, [&] { dcc_sim_ldcp_cwnd_event(m_h, (int)ev); });
    if (ev == TcpSocketState::CA_EVENT_ECN_IS_CE || ev == TcpSocketState::CA_EVENT_ECN_NO_CE)
    {
        if (io->demand_cwr)
            tcb->m_ecnState = TcpSocketState::ECN_CE_RCVD;
        else if (tcb->m_ecnState == TcpSocketState::ECN_CE_RCVD ||
                 tcb->m_ecnState == TcpSocketState::ECN_SENDING_ECE)
            tcb->m_ecnState = TcpSocketState::ECN_IDLE;
    }
    else
        Out(tcb, io);
}

void
TcpLdcpDcc::CongControl(Ptr<TcpSocketState> tcb,
                        const TcpRateOps::TcpRateConnection& rc,
                        const TcpRateOps::TcpRateSample& rs)
{
    if (!m_started)
        Start(tcb);
    uint32_t mss = std::max<uint32_t>(tcb->m_segmentSize, 1);
    struct dcc_sim_io* io = dcc_sim_ldcp_io(m_h);
    m_delivered = rc.m_delivered;
    In(tcb, io);
    int acked = (int)(rs.m_ackedSacked / mss), losses = (int)(rs.m_bytesLoss / mss);
    Traced(m_h, "in_ack_event", m_ece, 0, io, [&] { dcc_sim_ldcp_in_ack_event(m_h, m_ece); });
    Traced(m_h, "cong_control", acked, losses, io,
           [&] { dcc_sim_ldcp_cong_control(m_h, acked, losses); });
    m_ece = false;
    Out(tcb, io);
}

} // namespace ns3
