# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""NPU NIC address plan of a fleet, from the inventory. Pure functions, no Ansible import.

Each node sends a request (its inventory variables and the NPU devices it has); the fleet plan
is computed and checked as a whole, so that a duplicate address or a wrong count anywhere stops
the run before any node is touched. Every message names the host.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress

# chip families whose cards have no RoCE NIC: hccn_tool answers "The command is not supported on
# this product." there (Atlas 300I Duo and older inference cards)
NO_ROCE_FAMILIES = ('310', '310p', '310b')
# the host side of every NPU's virtual NIC: hccn_tool refuses addresses in it
VNIC_HOST_NET = ipaddress.ip_network(u'192.168.1.0/24')


def _text(value):
    return u'%s' % value


def _ipv4(value):
    try:
        return ipaddress.IPv4Address(_text(value).strip())
    except (ipaddress.AddressValueError, ValueError):
        return None


def _netmask(value):
    try:
        return ipaddress.IPv4Network(u'0.0.0.0/%s' % _text(value).strip()).netmask
    except (ipaddress.NetmaskValueError, ValueError):
        return None


def _check_address(host, device, address, netmask, gateway, cidr, errors):
    segment = ipaddress.IPv4Network(u'%s/%s' % (address, netmask), strict=False)
    if segment.prefixlen < 31 and address in (segment.network_address, segment.broadcast_address):
        errors.append('%s: device %s address %s is the %s address of %s' % (
            host, device, address,
            'network' if address == segment.network_address else 'broadcast', segment))
    if address in VNIC_HOST_NET:
        errors.append('%s: device %s address %s is in %s, the NPU virtual NIC network hccn_tool refuses'
                      % (host, device, address, VNIC_HOST_NET))
    if cidr is not None and address not in cidr:
        errors.append('%s: device %s address %s is outside hccn_base_cidr %s' % (host, device, address, cidr))
    if gateway is not None and gateway not in segment:
        errors.append('%s: hccn_gateway %s is outside the segment %s of device %s' % (host, gateway, segment, device))


def devices_of(chips):
    """The ids ``hccn_tool -i`` takes for npu_facts chips: the physical id, else the logic id.

    On A2/A3 hccn_tool reads ``-i`` as the physical id and converts it to the logic id itself
    (hicann/driver src/custom/network/hccn/ascend910B/hccn_tool/cmd.c, tool_parse_dev:
    ``dsmi_get_logicid_from_phyid``), and mind-cluster's npu-exporter passes the chip's PhyId.
    npu-smi prints the physical id where its table or ``info -m`` has a ``Phy-ID`` column (A3);
    910B boards print neither, and there the logic id stands in: the two are equal on a host that
    sees all of its chips (assumed: no capture with them apart on a bare host was found).
    One kind of id for the whole node: physical ids only when every chip has one (a mix of the
    two numbering spaces could name one chip twice).
    """
    chips = list(chips or [])
    if chips and all(chip.get('phy_id') is not None for chip in chips):
        return [chip['phy_id'] for chip in chips]
    return [chip.get('device_id') for chip in chips]


def plan_node(request, position, errors):
    """Addresses of one node: ``[{'device', 'address', 'netmask', 'gateway', 'netdetect'}]``.

    The node's devices are ``request['devices']``, or those of ``request['chips']`` (npu_facts
    chips, through ``devices_of``).
    """
    host = request['host']
    if request.get('chips') is not None:
        devices = devices_of(request['chips'])
    else:
        devices = list(request.get('devices') or [])
    family = request.get('chip_family')
    if family in NO_ROCE_FAMILIES:
        errors.append('%s: %s NPUs have no RoCE NIC (hccn_tool: "The command is not supported on this '
                      'product."); take the host out of the multi-node groups' % (host, family))
        return []
    if not devices:
        errors.append('%s: no NPU device found (npu-smi lists no chip); install the NPU driver first' % host)
        return []
    if any(device is None for device in devices):
        errors.append('%s: npu-smi gave no device id (physical or logic) for every chip; hccn_tool -i needs them' % host)
        return []
    repeated = sorted(set(d for d in devices if devices.count(d) > 1))
    if repeated:
        errors.append('%s: npu-smi names device %s more than once; hccn_tool -i needs one id per chip'
                      % (host, ', '.join(_text(d) for d in repeated)))
        return []

    if not request.get('addresses') and not request.get('base_cidr'):
        errors.append('%s: set hccn_addresses (one per NPU device) or hccn_base_cidr' % host)
        return []

    cidr = None
    if request.get('base_cidr'):
        try:
            cidr = ipaddress.IPv4Network(_text(request['base_cidr']).strip(), strict=True)
        except ValueError as exc:
            errors.append('%s: hccn_base_cidr %s is not an IPv4 network (%s)' % (host, request['base_cidr'], exc))
            return []

    if request.get('netmask'):
        netmask = _netmask(request['netmask'])
        if netmask is None:
            errors.append('%s: hccn_netmask %s is not a netmask' % (host, request['netmask']))
            return []
    elif cidr is not None:
        netmask = cidr.netmask
    else:
        errors.append('%s: set hccn_netmask (or hccn_base_cidr) for hccn_addresses' % host)
        return []

    gateway = None
    if request.get('gateway'):
        gateway = _ipv4(request['gateway'])
        if gateway is None:
            errors.append('%s: hccn_gateway %s is not an IPv4 address' % (host, request['gateway']))
            return []
    netdetect = None
    if request.get('netdetect'):
        netdetect = _ipv4(request['netdetect'])
        if netdetect is None:
            errors.append('%s: hccn_netdetect %s is not an IPv4 address' % (host, request['netdetect']))
            return []
    netdetect = netdetect or gateway

    addresses = request.get('addresses')
    if addresses:
        if len(addresses) != len(devices):
            errors.append('%s: hccn_addresses has %d addresses for %d NPU devices (%s)' % (
                host, len(addresses), len(devices), ', '.join(_text(d) for d in devices)))
            return []
        parsed = []
        for index, value in enumerate(addresses):
            address = _ipv4(value)
            if address is None:
                errors.append('%s: hccn_addresses[%d] %s is not an IPv4 address' % (host, index, value))
                return []
            parsed.append(address)
    else:
        index = request.get('node_index')
        node_index = position if index is None else int(index)
        stride = int(request.get('node_stride') or 16)
        first = int(request.get('first_offset') or 1)
        if node_index < 0:
            errors.append('%s: hccn_node_index %d is negative' % (host, node_index))
            return []
        if len(devices) > stride:
            errors.append('%s: %d NPU devices do not fit hccn_node_stride %d' % (host, len(devices), stride))
            return []
        last = first + node_index * stride + len(devices) - 1
        if last > cidr.num_addresses - 2:
            errors.append('%s: hccn_base_cidr %s has no room for node %d (%d NPU devices from offset %d; '
                          'the last usable offset is %d)' % (host, cidr, node_index, len(devices),
                                                             first + node_index * stride, cidr.num_addresses - 2))
            return []
        parsed = [cidr.network_address + first + node_index * stride + i for i in range(len(devices))]

    before = len(errors)
    for device, address in zip(devices, parsed):
        _check_address(host, device, address, netmask, gateway, cidr, errors)
    if len(errors) != before:
        return []
    return [{'device': device, 'address': _text(address), 'netmask': _text(netmask),
             'gateway': _text(gateway) if gateway else None,
             'netdetect': _text(netdetect) if netdetect else None}
            for device, address in zip(devices, parsed)]


def plan_fleet(requests):
    """Plan every node; returns ``{'plan': {host: [device plans]}, 'errors': [messages]}``.

    A node's default index is its position in ``requests`` (the play's host order).
    Addresses used twice anywhere in the fleet are errors naming both places.
    """
    errors = []
    plan = {}
    owners = {}
    for position, request in enumerate(requests):
        devices = plan_node(request, position, errors)
        plan[request['host']] = devices
        for item in devices:
            where = '%s device %s' % (request['host'], item['device'])
            if item['address'] in owners:
                errors.append('NPU address %s is planned twice: %s and %s' % (item['address'], owners[item['address']], where))
            else:
                owners[item['address']] = where
    return {'plan': plan, 'errors': errors}


def peers_of(plan, host):
    """Every planned NPU address of the other nodes: ``[{'node', 'device', 'address'}]``."""
    return [{'node': other, 'device': item['device'], 'address': item['address']}
            for other in sorted(plan) if other != host
            for item in plan[other]]
