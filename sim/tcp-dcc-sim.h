/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc and ldcp in ns-3: TcpCongestionOps over the shared controllers,
 * compiled as C (sim/hpcc_glue.c, sim/ldcp_glue.c; sim/dcc_sim.h).
 * Documentation/sim.rst, "hpcc and ldcp in the model".
 */
#ifndef TCP_DCC_SIM_H
#define TCP_DCC_SIM_H

#include "dcc_sim.h"

#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-socket-base.h"

#include <vector>

namespace ns3
{

/* What both classes do around the controller: TCP's state in and out. */
class TcpDccSim : public TcpCongestionOps
{
  public:
    static TypeId GetTypeId();
    TcpDccSim() = default;
    /* a fork (a listener's) starts afresh: its own flow */
    TcpDccSim(const TcpDccSim& o)
        : TcpCongestionOps(o),
          m_clamp(o.m_clamp)
    {
    }
    /* the socket's segments, for the ACK's ECE (in_ack_event) */
    void Attach(Ptr<TcpSocketBase> s);
    bool HasCongControl() const override { return true; }
    /* the controller's counters (HPCC_C_*, LDCP_C_*), none before it starts */
    virtual std::vector<uint64_t> Counters() const = 0;
    virtual const char* CounterName(int i) const = 0;
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override {}
    void Init(Ptr<TcpSocketState> tcb) override {}

  protected:
    void In(Ptr<const TcpSocketState> tcb, struct dcc_sim_io* io);
    void Out(Ptr<TcpSocketState> tcb, const struct dcc_sim_io* io);
    virtual void AckEvent(bool ece) {}
    virtual void Start(Ptr<TcpSocketState> tcb) = 0;
    bool Starts(Ptr<TcpSocketState> tcb, TcpSocketState::TcpCongState_t s);
    bool m_started = false;
    uint64_t m_srttNs = 0; /* Linux's EWMA of the RTT samples, 1/8 */
    uint64_t m_delivered = 0;
    uint32_t m_clamp = 100000;
};

class TcpHpccDcc : public TcpDccSim
{
  public:
    static TypeId GetTypeId();
    TcpHpccDcc();
    TcpHpccDcc(const TcpHpccDcc& o);
    ~TcpHpccDcc() override;
    std::string GetName() const override { return "TcpHpccDcc"; }
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    Ptr<TcpCongestionOps> Fork() override;

    std::vector<uint64_t> Counters() const override;
    const char* CounterName(int i) const override { return dcc_sim_hpcc_ctr_name(i); }

  protected:
    void Start(Ptr<TcpSocketState> tcb) override;

  private:
    void Telemetry(struct dcc_sim_io* io);
    struct dcc_sim_hpcc_cfg m_cfg;
    uint32_t m_lineRate = 10000, m_baseRtt = 0, m_eta = 95, m_nflows = 16;
    uint32_t m_maxStage = 5, m_wAi = 0, m_growPct = 90, m_commitSamples = 2,
             m_commitWaitPct = 100;
    bool m_csig = true, m_probe = true;
    void* m_h = nullptr;
};

class TcpLdcpDcc : public TcpDccSim
{
  public:
    static TypeId GetTypeId();
    TcpLdcpDcc();
    TcpLdcpDcc(const TcpLdcpDcc& o);
    ~TcpLdcpDcc() override;
    std::string GetName() const override { return "TcpLdcpDcc"; }
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    Ptr<TcpCongestionOps> Fork() override;
    uint32_t IwBytes() const;
    std::vector<uint64_t> Counters() const override;
    const char* CounterName(int i) const override { return dcc_sim_ldcp_ctr_name(i); }

  protected:
    void AckEvent(bool ece) override;
    void Start(Ptr<TcpSocketState> tcb) override;

  private:
    void* New();
    struct dcc_sim_ldcp_cfg m_cfg;
    uint32_t m_bw = 10000, m_baseRtt = 100, m_fastStart = 1;
    void* m_h = nullptr;
    bool m_ece = false;
};

} // namespace ns3

#endif
