#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dpr-doctor against fake machines.

Each case builds a machine as a directory tree (sysfs with its symlinks:
driver, iommu_group, net; /proc files; /lib/firmware), runs the built
dpr-doctor on it with --sysroot, and checks the findings, the fix commands
and the exit status. No root needed.

    tests/doctor/run.py build/app/dpr-doctor
"""
import json
import os
import stat
import subprocess
import sys
import tempfile

DOCTOR = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/app/dpr-doctor")
failures = []
checks = 0


def check(cond, what, out=""):
    global checks
    checks += 1
    if cond:
        return
    failures.append(what)
    print(f"FAIL: {what}")
    if out:
        print("---- output ----\n" + out.rstrip() + "\n----------------")


class Machine:
    """A fake machine below self.root; paths are given as on the real one."""

    def __init__(self, tmp, name):
        self.root = os.path.join(tmp, name)
        os.makedirs(self.root)
        self.v4 = []
        self.v6 = []

    def path(self, rel):
        return os.path.join(self.root, rel.lstrip("/"))

    def write(self, rel, text):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def mkdir(self, rel):
        os.makedirs(self.path(rel), exist_ok=True)

    def symlink(self, rel, target):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(target, p)

    def cmdline(self, text):
        self.write("/proc/cmdline", text + "\n")

    def cpu(self, vendor="GenuineIntel"):
        self.write("/proc/cpuinfo", f"processor\t: 0\nvendor_id\t: {vendor}\n")

    def nodes(self, cpus):
        """cpus: {node: "0-7"}"""
        for n, lst in cpus.items():
            self.write(f"/sys/devices/system/node/node{n}/cpulist", lst + "\n")
        self.write("/sys/devices/system/cpu/online", ",".join(cpus.values()) + "\n")

    def hugepages(self, kb, per_node, free=None):
        total = sum(per_node.values())
        d = f"/sys/kernel/mm/hugepages/hugepages-{kb}kB"
        self.write(d + "/nr_hugepages", f"{total}\n")
        self.write(d + "/free_hugepages", f"{total if free is None else free}\n")
        for n, nr in per_node.items():
            self.write(f"/sys/devices/system/node/node{n}/hugepages/hugepages-{kb}kB/nr_hugepages",
                       f"{nr}\n")

    def mounts(self, lines):
        self.write("/proc/mounts", "".join(l + "\n" for l in lines))

    def module(self, name, params=None):
        self.mkdir(f"/sys/module/{name}")
        for k, v in (params or {}).items():
            self.write(f"/sys/module/{name}/parameters/{k}", v + "\n")

    def pci(self, addr, vendor, device, cls=0x020000, driver=None, numa=-1, group=None,
            link=None, ifaces=()):
        """link: (cur GT/s, cur width, max GT/s, max width); ifaces: [(name, oper, mbps)]"""
        real = f"/sys/devices/pci{addr[:7]}/{addr}"
        self.write(real + "/vendor", f"0x{vendor:04x}\n")
        self.write(real + "/device", f"0x{device:04x}\n")
        self.write(real + "/class", f"0x{cls:06x}\n")
        self.write(real + "/numa_node", f"{numa}\n")
        if link:
            cs, cw, ms, mw = link
            self.write(real + "/current_link_speed", f"{cs} GT/s PCIe\n")
            self.write(real + "/current_link_width", f"{cw}\n")
            self.write(real + "/max_link_speed", f"{ms} GT/s PCIe\n")
            self.write(real + "/max_link_width", f"{mw}\n")
        self.symlink(f"/sys/bus/pci/devices/{addr}", f"../../../devices/pci{addr[:7]}/{addr}")
        if driver:
            self.mkdir(f"/sys/bus/pci/drivers/{driver}")
            self.symlink(real + "/driver", f"../../../bus/pci/drivers/{driver}")
        if group is not None:
            self.mkdir(f"/sys/kernel/iommu_groups/{group}/devices")
            self.symlink(real + "/iommu_group", f"../../../kernel/iommu_groups/{group}")
            self.symlink(f"/sys/kernel/iommu_groups/{group}/devices/{addr}",
                         f"../../../../devices/pci{addr[:7]}/{addr}")
        for name, oper, mbps in ifaces:
            self.write(f"{real}/net/{name}/operstate", oper + "\n")
            self.write(f"{real}/net/{name}/speed", f"{mbps}\n")

    def route4(self, iface, dst, mask):
        """dst, mask: dotted quads, written the way /proc/net/route has them"""
        def hexle(a):
            b = [int(x) for x in a.split(".")]
            return "%02X%02X%02X%02X" % (b[3], b[2], b[1], b[0])
        self.v4.append(f"{iface}\t{hexle(dst)}\t00000000\t0001\t0\t0\t0\t{hexle(mask)}\t0\t0\t0")
        self.write("/proc/net/route",
                   "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
                   + "".join(l + "\n" for l in self.v4))

    def route6(self, iface, dst_hex, plen, flags=0x0001):
        z = "0" * 32
        self.v6.append(f"{dst_hex} {plen:02x} {z} 00 {z} 00000100 00000001 00000000 {flags:08x} {iface:>8}")
        self.write("/proc/net/ipv6_route", "".join(l + "\n" for l in self.v6))

    def process(self, pid, comm):
        self.write(f"/proc/{pid}/comm", comm + "\n")


def run(m, *args, env=None):
    cmd = [DOCTOR, "--sysroot", m.root] + list(args)
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=60)
    return p.returncode, p.stdout + p.stderr


def findings(m, *args):
    rc, out = run(m, "--json", *args)
    try:
        return rc, json.loads(out), out
    except json.JSONDecodeError as e:
        check(False, f"--json output parses ({e})", out)
        return rc, [], out


def has(fs, sev, check_name, *words, fix=None):
    """A finding of that severity and check whose message has every word
    (and, with fix, whose fix commands contain it)."""
    for f in fs:
        if f["severity"] != sev or f["check"] != check_name:
            continue
        if not all(w in f["message"] for w in words):
            continue
        if fix is not None and not any(fix in c for c in f["fix"] or []):
            continue
        return True
    return False


def config(tmp, name, ports):
    p = os.path.join(tmp, name + ".json")
    with open(p, "w") as f:
        json.dump({"ports": [
            {"name": n, "device": d, "addresses": [f"10.0.{i}.1/24"]}
            for i, (n, d) in enumerate(ports)]}, f)
    return p


def fake_devbind(tmp, root):
    """Records its arguments and moves the device's driver link like the
    real dpdk-devbind.py would."""
    log = root + ".devbind.log"
    script = root + ".devbind.sh"
    with open(script, "w") as f:
        f.write(f"""#!/bin/sh
echo "$*" >> "{log}"
for a in "$@"; do case $a in --*) ;; *) addr=$a ;; esac; done
mkdir -p "{root}/sys/bus/pci/drivers/vfio-pci"
ln -sfn ../../../bus/pci/drivers/vfio-pci "{root}/sys/bus/pci/devices/$addr/driver"
""")
    os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)
    return script, log


def read(p):
    try:
        with open(p) as f:
            return f.read()
    except FileNotFoundError:
        return ""


def intel_base(m, iommu=True, nodes=None):
    m.cpu()
    m.cmdline("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro" + (" intel_iommu=on iommu=pt" if iommu else ""))
    m.nodes(nodes or {0: "0-7"})
    m.module("vfio")
    m.module("vfio_pci")


# (a) Chelsio T62100-CR (PF4 0x640d) in an x8 gen3 slot on node 1, no IOMMU,
#     on cxgb4, lcores on node 0.
def case_chelsio(tmp):
    m = Machine(tmp, "chelsio")
    intel_base(m, iommu=False, nodes={0: "0-7", 1: "8-15"})
    m.hugepages(2048, {0: 512, 1: 512})
    m.mounts(["hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0"])
    m.pci("0000:81:00.4", 0x1425, 0x640d, driver="cxgb4", numa=1, link=("8.0", 8, "8.0", 16),
          ifaces=[("enp129s0f4", "up", 100000), ("enp129s0f4d1", "down", -1)])
    m.pci("0000:81:00.0", 0x1425, 0x600d, numa=1)
    cfg = config(tmp, "chelsio", [("wan", "0000:81:00.4"), ("wan2", "0000:81:00.4_1")])
    rc, fs, out = findings(m, "-c", cfg, "--lcores", "0-3")
    check(rc == 1, "chelsio: exit 1 (errors)", out)
    check(has(fs, "error", "iommu", "no IOMMU", "intel_iommu=on", "config has PCI ports",
              fix="intel_iommu=on iommu=pt"), "chelsio: no IOMMU is an error with the GRUB fix", out)
    check(has(fs, "error", "iommu", fix="update-grub && reboot"), "chelsio: update-grub && reboot", out)
    check(has(fs, "error", "iommu", fix="modprobe vfio enable_unsafe_noiommu_mode=1"),
          "chelsio: no-IOMMU mode offered", out)
    check(has(fs, "error", "nic", "0000:81:00.4", "T62100-CR", "cxgb4", "NUMA node 1",
              "not bound", fix="modprobe -r cxgb4 csiostor"), "chelsio: on cxgb4 is an error", out)
    check(has(fs, "error", "nic", "0000:81:00.4", fix=f"dpr-doctor --bind -c {cfg}"),
          "chelsio: fix says dpr-doctor --bind -c CONFIG", out)
    check(has(fs, "warning", "pcie", "x8 at 8 GT/s = 63 Gbit/s", "need 200 Gbit/s",
              "x16 at 8 GT/s = 126 Gbit/s", fix="lspci -s 0000:81:00.4 -vv"),
          "chelsio: x8 gen3 slot cannot carry 2 x 100G", out)
    check(has(fs, "warning", "numa", "port wan", "NUMA node 1", "worker CPUs 1-3", "node 0",
              fix=f"dpr -l 8-15 -- -c {cfg}"), "chelsio: lcores on the wrong node", out)
    check(has(fs, "info", "firmware", "1.25.6.0", fix="ethtool -i enp129s0f4 | grep firmware-version"),
          "chelsio: firmware minimum named", out)
    check(has(fs, "info", "nic", "0000:81:00.0", "function 0", "function 4"),
          "chelsio: PF0 is not the NIC function", out)
    check(has(fs, "ok", "hugepages", "node1"), "chelsio: hugepages on node1", out)
    # firmware file and config file present
    m.write("/lib/firmware/cxgb4/t6fw-1.27.4.0.bin", "")
    m.write("/lib/firmware/cxgb4/t6fw-1.16.0.0.bin", "")
    m.write("/lib/firmware/cxgb4/t6-config.txt", "")
    rc, fs, out = findings(m, "-c", cfg, "--lcores", "0-3")
    check(has(fs, "ok", "firmware", "t6fw-1.27.4.0.bin"), "chelsio: newest firmware file found", out)
    check(has(fs, "info", "firmware", "t6-config.txt"), "chelsio: t6-config.txt reported", out)
    # text output: severity, message and fix lines
    rc, out = run(m, "-c", cfg, "--lcores", "0-3")
    check(rc == 1 and "error: iommu: no IOMMU" in out and
          "  fix: sed -i 's/^GRUB_CMDLINE_LINUX=\"/&intel_iommu=on iommu=pt /' /etc/default/grub" in out,
          "chelsio: text output names the GRUB edit", out)
    check(out.rstrip().splitlines()[-1].startswith(
          f"{sum(f['severity'] == 'error' for f in fs)} errors,"), "chelsio: summary line", out)
    rc, out = run(m, "-c", cfg, "--preflight")
    check(rc == 1 and "dpr cannot start" in out and "pcie" not in out and "numa" not in out,
          "chelsio: --preflight fails on binding/IOMMU only", out)


# (b) Intel E810 on the kernel's ice, port 0 carrying the default route.
def case_e810(tmp):
    m = Machine(tmp, "e810")
    intel_base(m)
    m.hugepages(1048576, {0: 4})
    m.hugepages(2048, {0: 0})
    m.mounts(["nodev /dev/hugepages1G hugetlbfs rw,relatime,pagesize=1024M 0 0"])
    for fn, ifname in ((0, "ens1f0"), (1, "ens1f1")):
        m.pci(f"0000:3b:00.{fn}", 0x8086, 0x1592, driver="ice", numa=0, group=30 + fn,
              link=("16.0", 16, "16.0", 16), ifaces=[(ifname, "up", 100000)])
    m.write("/lib/firmware/intel/ice/ddp/ice-1.3.30.0.pkg", "")
    m.symlink("/lib/firmware/intel/ice/ddp/ice.pkg", "ice-1.3.30.0.pkg")
    m.route4("ens1f0", "0.0.0.0", "0.0.0.0")
    m.route4("ens1f0", "192.0.2.0", "255.255.255.0")
    m.route6("ens1f0", "fe800000000000000000000000000000", 64)
    m.route6("ens1f1", "fe800000000000000000000000000000", 64)
    m.route6("lo", "00000000000000000000000000000000", 0, flags=0x00200200)
    cfg = config(tmp, "e810", [("p0", "0000:3b:00.0"), ("p1", "0000:3b:00.1,rx_low_latency=1")])
    rc, fs, out = findings(m, "-c", cfg)
    check(rc == 1, "e810: exit 1", out)
    check(has(fs, "error", "nic", "0000:3b:00.0", "E810-C QSFP", "ice", "carries the default route",
              fix=f"dpr-doctor --bind -c {cfg} --force"), "e810: p0 not bound, carries default route", out)
    check(has(fs, "warning", "nic", "config port p0", "default route", "management"),
          "e810: warns that p0 is the management interface", out)
    check(has(fs, "error", "nic", "0000:3b:00.1", "not bound", fix=f"dpr-doctor --bind -c {cfg}"),
          "e810: p1 not bound", out)
    check(not has(fs, "warning", "nic", "config port p1"), "e810: p1 has no routes (fe80 only)", out)
    check(has(fs, "ok", "pcie", "0000:3b:00.0", "16 GT/s", "100 Gbit/s"),
          "e810: gen4 x16 enough for the controller's 100G", out)
    check(has(fs, "ok", "firmware", "ice-1.3.30.0.pkg"), "e810: DDP package found", out)
    check(has(fs, "ok", "iommu", "IOMMU on"), "e810: IOMMU on", out)
    check(has(fs, "ok", "hugepages", "pages of 1G", "/dev/hugepages1G"),
          "e810: pagesize=1024M mount counts for 1G pages", out)
    check(has(fs, "info", "isolation", "no lcores given"), "e810: no lcores: info", out)

    rc, out = run(m, "--bind", "-c", cfg, "--devbind", os.path.join(tmp, "no-such-devbind"))
    check(rc == 1 and "failed (exit 127)" in out and "undo" not in out,
          "e810 --bind: a devbind that cannot run is a failure", out)
    devbind, log = fake_devbind(tmp, m.root)
    rc, out = run(m, "--bind", "-c", cfg, "--devbind", devbind)
    check(rc == 1, "e810 --bind: exit 1 when p0 is refused", out)
    check("port p0: 0000:3b:00.0: refused" in out and "default route" in out and "--force" in out,
          "e810 --bind: refuses the default-route interface", out)
    check(read(log) == "--bind=vfio-pci 0000:3b:00.1\n", "e810 --bind: only p1 handed to devbind",
          read(log))
    check("undo: dpdk-devbind.py --bind=ice 0000:3b:00.1" in out, "e810 --bind: undo command", out)
    rc, out = run(m, "--bind", "--force", "-c", cfg, env={"DPR_DEVBIND": devbind})
    check(rc == 0, "e810 --bind --force: exit 0", out)
    check(read(log).splitlines()[-1] == "--force --bind=vfio-pci 0000:3b:00.0",
          "e810 --bind --force: devbind gets --force for p0", read(log))
    check("0000:3b:00.1 already bound to vfio-pci" in out, "e810 --bind --force: p1 skipped", out)
    check("undo: dpdk-devbind.py --bind=ice 0000:3b:00.0" in out, "e810 --bind --force: undo", out)
    rc, fs, out = findings(m, "-c", cfg, "--preflight")
    check(rc == 0 and all(f["preflight"] for f in fs), "e810: --preflight passes once bound", out)


# (c) 1 GiB pages on node 0 only, port on node 1, no hugetlbfs mounted.
def case_hugepages(tmp):
    m = Machine(tmp, "huge")
    intel_base(m, nodes={0: "0-3", 1: "4-7"})
    m.hugepages(1048576, {0: 8, 1: 0})
    m.hugepages(2048, {0: 0, 1: 0})
    m.mounts(["proc /proc proc rw 0 0"])
    m.pci("0000:d8:00.0", 0x8086, 0x10fb, driver="vfio-pci", numa=1, group=5,
          link=("5.0", 8, "5.0", 8))
    cfg = config(tmp, "huge", [("p0", "0000:d8:00.0")])
    rc, fs, out = findings(m, "-c", cfg)
    check(rc == 1, "hugepages: exit 1", out)
    check(has(fs, "error", "hugepages", "8 pages of 1G", "no hugetlbfs",
              fix="mount -t hugetlbfs -o pagesize=1G nodev /dev/hugepages-1G"),
          "hugepages: 1G not mounted", out)
    check(has(fs, "error", "hugepages", "node1 has no hugepages", "8 of 1G on node0",
              fix="echo 8 > /sys/devices/system/node/node1/hugepages/hugepages-1048576kB/nr_hugepages"),
          "hugepages: wrong node", out)
    rc, out = run(m, "-c", cfg, "--preflight")
    check(rc == 1 and "node1 has no hugepages" in out, "hugepages: --preflight exit 1", out)
    # none at all
    m2 = Machine(tmp, "nohuge")
    intel_base(m2)
    m2.hugepages(2048, {0: 0})
    rc, fs, out = findings(m2)
    check(rc == 1 and has(fs, "error", "hugepages", "no hugepages reserved",
                          fix="echo 1024 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"),
          "hugepages: none reserved", out)


# (d) a healthy machine; (h) its --json.
def case_healthy(tmp):
    m = Machine(tmp, "healthy")
    m.cpu()
    m.cmdline("root=/dev/sda1 intel_iommu=on iommu=pt isolcpus=1-3 nohz_full=1-3 rcu_nocbs=1-3 "
              "default_hugepagesz=1G hugepagesz=1G hugepages=4")
    m.nodes({0: "0-3"})
    m.module("vfio")
    m.module("vfio_pci")
    m.module("ixgbe")
    m.hugepages(1048576, {0: 4})
    m.hugepages(2048, {0: 0})
    m.mounts(["nodev /dev/hugepages1G hugetlbfs rw,relatime,pagesize=1G 0 0"])
    m.pci("0000:03:00.0", 0x8086, 0x10fb, driver="vfio-pci", numa=0, group=12,
          link=("5.0", 8, "5.0", 8))
    m.pci("0000:03:00.1", 0x8086, 0x10fb, driver="vfio-pci", numa=0, group=13,
          link=("5.0", 8, "5.0", 8))
    m.pci("0000:00:1c.0", 0x8086, 0xa110, cls=0x060400, driver="pcieport", group=12)
    m.pci("0000:02:00.0", 0x8086, 0x1533, driver="igb", numa=0,
          ifaces=[("eno1", "up", 1000)])
    m.route4("eno1", "0.0.0.0", "0.0.0.0")
    m.process(1, "systemd")
    cfg = config(tmp, "healthy", [("lan", "0000:03:00.0"), ("wan", "03:00.1"),
                                  ("tap", "net_tap0,iface=dpr-x")])
    rc, fs, out = findings(m, "-c", cfg, "--lcores", "0-3")
    check(rc == 0, "healthy: exit 0", out)
    check(not any(f["severity"] == "error" for f in fs), "healthy: no errors", out)
    check(not any(f["severity"] == "warning" for f in fs), "healthy: no warnings", out)
    check(has(fs, "ok", "pcie", "0000:03:00.0", "x8 at 5 GT/s", "32 Gbit/s", "20 Gbit/s"),
          "healthy: 82599 dual port on gen2 x8 is enough", out)
    check(has(fs, "ok", "isolation", "worker CPUs 1-3"), "healthy: workers isolated", out)
    check(has(fs, "ok", "numa", "port lan"), "healthy: same node", out)
    check(has(fs, "info", "config", "virtual device"), "healthy: vdev port noted", out)
    check(has(fs, "info", "nic", "0000:02:00.0", "not a model dpr has a profile for"),
          "healthy: igb listed without a profile", out)
    for f in fs:
        check(set(f) == {"severity", "check", "subject", "message", "fix", "preflight"} and
              f["severity"] in ("ok", "info", "warning", "error") and
              (f["fix"] is None or all(isinstance(c, str) and c for c in f["fix"])),
              "healthy: json finding shape", json.dumps(f))
    rc, out = run(m, "-c", cfg, "--lcores", "0-3")
    check(rc == 0 and "0 errors, 0 warnings" in out, "healthy: text summary", out)
    rc, out = run(m, "-c", cfg, "--preflight")
    check(rc == 0 and "nothing stops dpr from starting" in out, "healthy: --preflight exit 0", out)
    rc, fs, out = findings(m, "-c", cfg, "--preflight")
    check(rc == 0 and fs and all(f["preflight"] for f in fs), "healthy: --preflight --json", out)
    # a device of the group on a kernel driver makes the group unusable
    m.pci("0000:03:00.2", 0x8086, 0x10fb, driver="ixgbe", numa=0, group=12)
    rc, fs, out = findings(m, "-c", cfg, "--preflight")
    check(rc == 1 and has(fs, "error", "iommu", "IOMMU group 12", "0000:03:00.2 (ixgbe)",
                          fix="dpdk-devbind.py -u 0000:03:00.2"),
          "healthy: IOMMU group shared with a kernel device", out)


# (e) ice without its DDP package, and with an old one.
def case_ice_ddp(tmp):
    m = Machine(tmp, "iceddp")
    intel_base(m)
    m.hugepages(2048, {0: 1024})
    m.mounts(["hugetlbfs /dev/hugepages hugetlbfs rw 0 0"])
    m.write("/proc/meminfo", "MemTotal: 1 kB\nHugepagesize:       2048 kB\n")
    m.pci("0000:17:00.0", 0x8086, 0x159b, driver="vfio-pci", numa=0, group=3,
          link=("16.0", 8, "16.0", 8))
    m.write("/sys/module/ice/version", "1.9.11\n")
    cfg = config(tmp, "iceddp", [("p0", "0000:17:00.0")])
    rc, fs, out = findings(m, "-c", cfg)
    check(rc == 1, "ice ddp: exit 1", out)
    check(has(fs, "error", "firmware", "0000:17:00.0", "no DDP package", "Safe Mode", "no RSS",
              fix="apt install firmware-misc-nonfree"), "ice ddp: missing package is an error", out)
    check(has(fs, "warning", "firmware", "ice driver 1.9.11", "1.10.1"),
          "ice ddp: old kernel driver named", out)
    check(has(fs, "ok", "hugepages", "/dev/hugepages"), "ice ddp: mount without pagesize= uses the default size", out)
    rc, out = run(m, "-c", cfg, "--preflight")
    check(rc == 1 and "no DDP package" in out, "ice ddp: --preflight exit 1", out)
    m.write("/lib/firmware/updates/intel/ice/ddp/ice-1.3.26.0.pkg", "")
    m.symlink("/lib/firmware/updates/intel/ice/ddp/ice.pkg", "ice-1.3.26.0.pkg")
    rc, fs, out = findings(m, "-c", cfg)
    check(rc == 0 and has(fs, "warning", "firmware", "ice-1.3.26.0.pkg", "older than 1.3.30"),
          "ice ddp: old package warns", out)


# (e2) Default page size 1G (default_hugepagesz=1G, as the doctor advises),
#      its hugetlbfs mounted without pagesize= (kernels before 4.15 show
#      none): the mount is the 1G pages', read from a /proc/meminfo as long
#      as a real one (Hugepagesize: past its first KiB).
def case_default_1g(tmp):
    m = Machine(tmp, "dflt1g")
    intel_base(m)
    m.hugepages(1048576, {0: 4})
    m.hugepages(2048, {0: 0})
    m.mounts(["hugetlbfs /dev/hugepages hugetlbfs rw,relatime 0 0"])
    m.write("/proc/meminfo", "".join(f"Field{i:02d}:        {i * 1000} kB\n" for i in range(45)) +
            "HugePages_Total:       4\nHugePages_Free:        4\nHugepagesize:    1048576 kB\n")
    m.pci("0000:17:00.0", 0x8086, 0x159b, driver="vfio-pci", numa=0, group=3,
          link=("16.0", 8, "16.0", 8))
    cfg = config(tmp, "dflt1g", [("p0", "0000:17:00.0")])
    rc, fs, out = findings(m, "-c", cfg)
    check(has(fs, "ok", "hugepages", "4 pages of 1G", "/dev/hugepages"),
          "default 1G: the mount without pagesize= is the 1G pages'", out)
    check(not has(fs, "error", "hugepages", "no hugetlbfs"),
          "default 1G: no false 'no hugetlbfs mounted' error", out)


# (f) isolcpus not covering the lcores, irqbalance running.
def case_isolation(tmp):
    m = Machine(tmp, "iso")
    intel_base(m)
    m.cmdline("root=/dev/sda1 intel_iommu=on iommu=pt isolcpus=managed_irq,domain,2-3 nohz_full=2-3")
    m.hugepages(2048, {0: 1024})
    m.mounts(["hugetlbfs /dev/hugepages hugetlbfs rw,pagesize=2M 0 0"])
    m.process(1, "systemd")
    m.process(812, "irqbalance")
    rc, fs, out = findings(m, "--lcores", "0-5")
    check(has(fs, "warning", "isolation", "worker CPUs 1-5", "isolcpus lacks 1,4-5",
              "nohz_full lacks 1,4-5", "rcu_nocbs lacks 1-5", "isolcpus=2-3",
              fix="isolcpus=1-5 nohz_full=1-5 rcu_nocbs=1-5"), "isolation: workers not isolated", out)
    check(has(fs, "warning", "isolation", "irqbalance is running", "1-5",
              fix="echo 'IRQBALANCE_BANNED_CPULIST=1-5' >> /etc/default/irqbalance"),
          "isolation: irqbalance may move interrupts onto workers", out)
    check(has(fs, "warning", "isolation", "irqbalance", fix="systemctl restart irqbalance"),
          "isolation: irqbalance restart", out)
    rc, fs, out = findings(m, "--lcores", "2-3")
    check(has(fs, "warning", "isolation", "main lcore CPU 2 is isolated"), "isolation: main lcore isolated", out)
    m.write("/etc/default/irqbalance", "#IRQBALANCE_ONESHOT=\nIRQBALANCE_BANNED_CPULIST=1-5\n")
    rc, fs, out = findings(m, "--lcores", "0@0,(1-3)@(1-3),4@4,5@5")
    check(has(fs, "ok", "isolation", "irqbalance", "1-5"), "isolation: banned list honoured", out)
    m.write("/etc/default/irqbalance", 'IRQBALANCE_BANNED_CPUS="3e"\n')
    rc, fs, out = findings(m, "--lcores", "0-5")
    check(has(fs, "ok", "isolation", "irqbalance"), "isolation: hex banned mask honoured", out)
    rc, fs, out = findings(m, "--lcores", "0,9")
    check(rc == 1 and has(fs, "error", "lcores", "CPUs 9", "not online"), "isolation: lcore on a missing CPU", out)
    rc, fs, out = findings(m, "--lcores", "3")
    check(rc == 1 and has(fs, "error", "lcores", "one lcore"), "isolation: one lcore is not enough", out)


# Mellanox: stays on mlx5_core; --bind leaves it.
def case_mellanox(tmp):
    m = Machine(tmp, "mlx")
    intel_base(m)
    m.hugepages(2048, {0: 1024})
    m.mounts(["hugetlbfs /dev/hugepages hugetlbfs rw,pagesize=2M 0 0"])
    m.pci("0000:5e:00.0", 0x15b3, 0x1017, driver="mlx5_core", numa=0, group=40,
          link=("8.0", 8, "8.0", 16), ifaces=[("enp94s0f0", "up", 100000)])
    cfg = config(tmp, "mlx", [("p0", "0000:5e:00.0")])
    rc, fs, out = findings(m, "-c", cfg)
    check(has(fs, "ok", "nic", "ConnectX-5", "mlx5_core", "bifurcated", "never on vfio-pci"),
          "mlx: bifurcation explained", out)
    check(has(fs, "error", "nic", "mlx5_ib", fix="modprobe mlx5_ib ib_uverbs"), "mlx: modules needed", out)
    check(has(fs, "warning", "pcie", "x8 at 8 GT/s = 63 Gbit/s", "need 100 Gbit/s"),
          "mlx: speed from the interface against the slot", out)
    m.module("mlx5_ib")
    m.module("ib_uverbs")
    rc, out = run(m, "-c", cfg, "--preflight")
    check(rc == 0, "mlx: --preflight passes on mlx5_core", out)
    devbind, log = fake_devbind(tmp, m.root)
    rc, out = run(m, "--bind", "-c", cfg, "--devbind", devbind)
    check(rc == 0 and "stays on mlx5_core" in out and read(log) == "", "mlx: --bind leaves it", out)


# A port on uio_pci_generic needs no IOMMU.
def case_uio(tmp):
    m = Machine(tmp, "uio")
    m.cpu()
    m.cmdline("root=/dev/sda1 iommu=pt")
    m.nodes({0: "0-3"})
    m.hugepages(2048, {0: 1024})
    m.mounts(["hugetlbfs /dev/hugepages hugetlbfs rw,pagesize=2M 0 0"])
    m.pci("0000:05:00.0", 0x8086, 0x1572, driver="uio_pci_generic", numa=0,
          link=("8.0", 8, "8.0", 8))
    cfg = config(tmp, "uio", [("p0", "0000:05:00.0")])
    rc, fs, out = findings(m, "-c", cfg)
    check(rc == 0 and has(fs, "info", "iommu", "no IOMMU") and has(fs, "info", "vfio", "not loaded")
          and has(fs, "ok", "nic", "port p0", "X710", "uio_pci_generic"),
          "uio: no IOMMU needed for a uio port", out)


# (i) a root with almost nothing in it; a device with only some files.
def case_sparse(tmp):
    m = Machine(tmp, "sparse")
    rc, fs, out = findings(m)
    check(rc == 1, "sparse: exit 1 (no hugepages)", out)
    check(has(fs, "info", "system", "no /proc/cmdline"), "sparse: says /proc/cmdline is missing", out)
    check(has(fs, "info", "nic", "no PCI network devices"), "sparse: no devices", out)
    check(has(fs, "error", "hugepages", "no /sys/kernel/mm/hugepages"), "sparse: no hugepage support", out)
    m.write("/sys/devices/pci0000:00/0000:00:03.0/vendor", "0x8086\n")
    m.write("/sys/devices/pci0000:00/0000:00:03.0/device", "0x1592\n")
    m.symlink("/sys/bus/pci/devices/0000:00:03.0", "../../../devices/pci0000:00/0000:00:03.0")
    m.write("/sys/devices/pci0000:00/0000:00:04.0/vendor", "garbage")
    m.symlink("/sys/bus/pci/devices/0000:00:04.0", "../../../devices/pci0000:00/0000:00:04.0")
    m.symlink("/sys/bus/pci/devices/0000:00:05.0", "../../../devices/pci0000:00/missing")
    m.write("/proc/net/route", "garbage\n\n")
    m.write("/proc/mounts", "x\n")
    cfg = config(tmp, "sparse", [("p0", "0000:00:03.0"), ("p1", "0000:09:00.0")])
    rc, fs, out = findings(m, "-c", cfg, "--lcores", "0-1")
    check(rc == 1 and has(fs, "error", "nic", "E810-C QSFP", "on no driver", "not bound"),
          "sparse: a device with few files", out)
    check(has(fs, "error", "config", "port p1", "not in /sys/bus/pci/devices"),
          "sparse: config port missing", out)
    rc, out = run(m, "-c", cfg)
    check(rc == 1 and "errors," in out, "sparse: text output", out)


# The TSC and the kernel's clock.
def case_clock(tmp):
    def machine(name, flags, clocksource, cmdline="root=/dev/sda1"):
        m = Machine(tmp, name)
        m.write("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\n"
                f"flags\t\t: {flags}\nbogomips\t: 4000\n\nprocessor\t: 1\n")
        m.cmdline(cmdline)
        if clocksource:
            d = "/sys/devices/system/clocksource/clocksource0"
            m.write(d + "/current_clocksource", clocksource + "\n")
            m.write(d + "/available_clocksource", "tsc hpet acpi_pm \n")
        return findings(m)

    rc, fs, out = machine("clock-tsc", "fpu tsc constant_tsc nonstop_tsc rdtscp", "tsc")
    check(has(fs, "ok", "clock", "keeps time on the TSC"), "clock: tsc is ok", out)
    check(not any(f["check"] == "clock" and f["severity"] != "ok" for f in fs),
          "clock: nothing else about the clock on a steady TSC", out)
    rc, fs, out = machine("clock-kvm", "fpu tsc constant_tsc nonstop_tsc tsc_known_freq",
                          "kvm-clock", "console=ttyS0 tsc=reliable tsc=unstable")
    check(has(fs, "info", "clock", "kvm-clock", "tsc=unstable", "CLOCK_MONOTONIC", "jump"),
          "clock: kvm-clock with tsc=unstable is info", out)
    check(not any(f["check"] == "clock" and f["severity"] == "warning" for f in fs),
          "clock: no warning on a VM's kvm-clock", out)
    rc, fs, out = machine("clock-hpet", "fpu tsc constant_tsc", "hpet")
    check(has(fs, "warning", "clock", "hpet", "tsc hpet acpi_pm", fix="dmesg"),
          "clock: hpet on bare metal is a warning with the dmesg command", out)
    check(has(fs, "info", "clock", "nonstop_tsc"), "clock: no nonstop_tsc is info", out)
    # "tsc_reliable" and "constant_tsc_x" are other flags, not constant_tsc.
    rc, fs, out = machine("clock-var", "fpu tsc tsc_reliable constant_tsc_x nonstop_tsc", "tsc")
    check(has(fs, "warning", "clock", "no constant_tsc", "cycles_per_packet"),
          "clock: a TSC without constant_tsc is a warning", out)
    rc, fs, out = machine("clock-none", "fpu tsc constant_tsc nonstop_tsc", None)
    check(not any(f["check"] == "clock" for f in fs),
          "clock: no clocksource file, no finding", out)


# Usage errors and bad configs.
def case_usage(tmp):
    m = Machine(tmp, "usage")
    for args, what in ((["--force"], "--force without --bind"),
                       (["--bind"], "--bind without -c"),
                       (["--lcores", "x"], "bad --lcores"),
                       (["--lcores", "1-"], "bad --lcores range"),
                       (["--bogus"], "unknown option"),
                       (["extra"], "stray argument")):
        rc, out = run(m, *args)
        check(rc == 2, f"usage: {what} exits 2", out)
    rc, out = subprocess.run([DOCTOR, "--sysroot", os.path.join(tmp, "nope")],
                             capture_output=True, text=True).returncode, ""
    check(rc == 2, "usage: missing --sysroot exits 2")
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"ports": [{"name": "p0"}]}')
    rc, fs, out = findings(m, "-c", bad)
    check(rc == 1 and has(fs, "error", "config", "ports[0]"), "usage: bad config is an error", out)
    rc, out = run(m, "--bind", "-c", bad)
    check(rc == 1, "usage: --bind with a bad config exits 1", out)


def case_real_machine():
    p = subprocess.run([DOCTOR], capture_output=True, text=True, timeout=60)
    check(p.returncode in (0, 1) and "errors," in p.stdout and not p.stderr,
          "real machine: runs and summarises", p.stdout + p.stderr)
    p = subprocess.run([DOCTOR, "--json"], capture_output=True, text=True, timeout=60)
    try:
        json.loads(p.stdout)
        ok = True
    except json.JSONDecodeError:
        ok = False
    check(ok, "real machine: --json parses", p.stdout)


# VRFs and VLAN interfaces: a VRF no interface is in, VRFs on DIR-24-8 and
# what they cost, a VLAN interface whose af_packet port's kernel interface
# is down.
def case_vrf(tmp):
    m = Machine(tmp, "vrf")
    m.write("/sys/class/net/veth0/operstate", "up\n")
    m.write("/sys/class/net/veth1/operstate", "down\n")
    p = os.path.join(tmp, "vrf.json")
    with open(p, "w") as f:
        json.dump({
            "ports": [{"name": "p0", "device": "net_af_packet0,iface=veth0", "tap": False,
                       "addresses": ["10.0.1.1/24"]},
                      {"name": "p1", "device": "net_af_packet1,iface=veth1", "tap": False,
                       "addresses": ["10.0.2.1/24"]}],
            "vrfs": [{"name": "red", "table": 100},
                     {"name": "blue", "table": 200,
                      "fib": {"ipv4_algorithm": "poptrie", "ipv6_algorithm": "poptrie"}},
                     {"name": "green", "table": 300,
                      "fib": {"ipv4_algorithm": "poptrie", "ipv6_algorithm": "poptrie"}}],
            "vlans": [{"name": "p0.100", "port": "p0", "id": 100, "vrf": "red", "tap": False,
                       "addresses": ["10.0.1.1/24"]},
                      {"name": "p1.200", "port": "p1", "id": 200, "vrf": "blue", "tap": False,
                       "addresses": ["10.0.2.1/24"]}],
            "fib": {"ipv4_tbl8_groups": 1024, "ipv6_tbl8_groups": 1024}}, f)
    rc, fs, out = findings(m, "-c", p)
    check(has(fs, "warning", "vrf", "VRF green", "no port or VLAN interface", fix='"vrf": "green"'),
          "vrf: a VRF with no interface", out)
    check(not has(fs, "warning", "vrf", "VRF blue", "no port"), "vrf: blue has p1.200", out)
    check(has(fs, "warning", "vrf", "VRF red", "DIR-24-8", "130 MiB", fix='"poptrie"'),
          "vrf: red on DIR-24-8 costs 2 x (64 MiB + 1 MiB), Poptrie suggested", out)
    check(not has(fs, "warning", "vrf", "VRF blue", "DIR-24-8"), "vrf: blue is on Poptrie", out)
    check(not has(fs, "warning", "vrf", "VRF default"), "vrf: the default VRF's own tables are no warning",
          out)
    check(has(fs, "info", "vrf", "4 VRFs", "260 MiB", "130 MiB beyond"), "vrf: the total", out)
    check(has(fs, "warning", "vlan", "p1.200", "VLAN 200 of p1", "VRF blue", "veth1 is down",
              fix="ip link set veth1 up"), "vrf: p1.200's port is down", out)
    check(not has(fs, "warning", "vlan", "p0.100"), "vrf: p0.100's port is up", out)
    rc, out = run(m, "-c", p)
    check("warning: vlan: VLAN interface p1.200" in out and
          'fix: # in ' not in out, "vrf: text output", out)


def main():
    with tempfile.TemporaryDirectory(prefix="dpr-doctor-") as tmp:
        for case in (case_chelsio, case_e810, case_hugepages, case_healthy, case_ice_ddp,
                     case_default_1g,
                     case_isolation, case_mellanox, case_uio, case_sparse, case_clock,
                     case_usage, case_vrf):
            before = len(failures)
            case(tmp)
            print(f"{'ok' if len(failures) == before else 'not ok'} - {case.__name__[5:]}")
        case_real_machine()
    print(f"{checks - len(failures)} of {checks} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
