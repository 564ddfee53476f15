/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-flow deterministic multipath for the switches: ns-3 3.37's global
 * routing sprays ECMP per packet (RandomEcmpRouting), which reorders every
 * flow.  FlowHashRouting keeps, per destination host, the equal-cost next
 * hops and picks one by a hash of the packet's 4-tuple (and the node, so
 * that the tiers do not choose alike), as a switch's ECMP does.
 */
#ifndef DCCSIM_FLOW_ROUTING_H
#define DCCSIM_FLOW_ROUTING_H

#include "ns3/internet-module.h"

#include <map>
#include <vector>

namespace ns3
{

class FlowHashRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId();

    void AddRoute(Ipv4Address dst, uint32_t ifc, Ipv4Address gw);

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override {}
    void NotifyInterfaceDown(uint32_t interface) override {}
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override {}
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override {}
    void SetIpv4(Ptr<Ipv4> ipv4) override { m_ipv4 = ipv4; }
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

  private:
    Ptr<Ipv4Route> Pick(Ipv4Address dst, uint32_t hash);

    struct Hop
    {
        uint32_t ifc;
        Ipv4Address gw;
    };

    Ptr<Ipv4> m_ipv4;
    std::map<uint32_t, std::vector<Hop>> m_routes;
};

class FlowHashRoutingHelper : public Ipv4RoutingHelper
{
  public:
    FlowHashRoutingHelper* Copy() const override { return new FlowHashRoutingHelper(*this); }
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override
    {
        return CreateObject<FlowHashRouting>();
    }
};

} // namespace ns3

#endif
