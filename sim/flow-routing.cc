// SPDX-License-Identifier: GPL-2.0
#include "flow-routing.h"

#include "csig-model.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlowHashRouting);

TypeId
FlowHashRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowHashRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .AddConstructor<FlowHashRouting>();
    return tid;
}

void
FlowHashRouting::AddRoute(Ipv4Address dst, uint32_t ifc, Ipv4Address gw)
{
    m_routes[dst.Get()].push_back(Hop{ifc, gw});
}

Ptr<Ipv4Route>
FlowHashRouting::Pick(Ipv4Address dst, uint32_t hash)
{
    auto it = m_routes.find(dst.Get());

    if (it == m_routes.end() || it->second.empty())
        return nullptr;
    const Hop& h = it->second[hash % it->second.size()];
    Ptr<Ipv4Route> r = Create<Ipv4Route>();
    r->SetDestination(dst);
    r->SetGateway(h.gw);
    r->SetOutputDevice(m_ipv4->GetNetDevice(h.ifc));
    r->SetSource(m_ipv4->GetAddress(h.ifc, 0).GetLocal());
    return r;
}

Ptr<Ipv4Route>
FlowHashRouting::RouteOutput(Ptr<Packet> p,
                             const Ipv4Header& header,
                             Ptr<NetDevice> oif,
                             Socket::SocketErrno& sockerr)
{
    Ptr<Ipv4Route> r = Pick(header.GetDestination(), 0);

    sockerr = r ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
    return r;
}

bool
FlowHashRouting::RouteInput(Ptr<const Packet> p,
                            const Ipv4Header& header,
                            Ptr<const NetDevice> idev,
                            UnicastForwardCallback ucb,
                            MulticastForwardCallback mcb,
                            LocalDeliverCallback lcb,
                            ErrorCallback ecb)
{
    uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);

    for (uint32_t i = 0; i < m_ipv4->GetNInterfaces(); i++)
        for (uint32_t j = 0; j < m_ipv4->GetNAddresses(i); j++)
            if (m_ipv4->GetAddress(i, j).GetLocal() == header.GetDestination())
            {
                lcb(p, header, iif);
                return true;
            }
    FlowKey k{header.GetSource().Get(), header.GetDestination().Get(), 0, 0};
    TcpHeader th;
    if (header.GetProtocol() == 6 && p->PeekHeader(th))
    {
        k.sport = th.GetSourcePort();
        k.dport = th.GetDestinationPort();
    }
    /* the node in the hash: each tier splits the flows its own way */
    uint32_t h = k.Hash() ^ (m_ipv4->GetObject<Node>()->GetId() * 0x9e3779b9U);
    h ^= h >> 16;
    Ptr<Ipv4Route> r = Pick(header.GetDestination(), h);
    if (!r)
    {
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return false;
    }
    ucb(r, p, header);
    return true;
}

void
FlowHashRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const
{
    std::ostream& os = *stream->GetStream();

    for (const auto& [dst, hops] : m_routes)
    {
        os << Ipv4Address(dst) << ":";
        for (const Hop& h : hops)
            os << " if" << h.ifc << " via " << h.gw;
        os << "\n";
    }
}

} // namespace ns3
