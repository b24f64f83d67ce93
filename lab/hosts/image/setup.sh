#!/bin/sh
# Runs inside the freshly debootstrapped root file system (chroot) of the DGX stand-in image.
# Changing this file rebuilds the image.
set -eu

# Host keys are generated per host by lab/hosts (so the lab can write known_hosts); none in the image.
rm -f /etc/ssh/ssh_host_*
cat > /etc/ssh/sshd_config.d/10-aipod-lab.conf <<'CONF'
# DGX stand-in: key-only root login for Ansible; the lab generates the host key.
HostKey /etc/ssh/ssh_host_ed25519_key
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
# Ansible opens a burst of sessions per host; keep them all.
MaxStartups 64:30:128
MaxSessions 64
CONF
mkdir -p /root/.ssh && chmod 700 /root/.ssh

# No traffic beyond the lab: nothing may fetch from an archive or a time server on its own.
for unit in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
            systemd-timesyncd.service; do
  ln -sf /dev/null "/etc/systemd/system/$unit"
done
# Units that have nothing to do in a container and would only leave the system "degraded" (the
# password-request watchers also hold inotify instances, which many hosts share with the machine).
for unit in getty@tty1.service console-getty.service systemd-udevd.service systemd-udev-trigger.service \
            systemd-modules-load.service sys-kernel-config.mount sys-kernel-debug.mount \
            systemd-remount-fs.service systemd-ask-password-console.path systemd-ask-password-wall.path; do
  ln -sf /dev/null "/etc/systemd/system/$unit"
done

# This kernel has no sunrpc: nfs-common's rpc_pipefs mount would fail and leave every host
# "degraded". Where sunrpc is loaded (a real DGX) the condition holds and nothing changes.
mkdir -p /etc/systemd/system/run-rpc_pipefs.mount.d
cat > /etc/systemd/system/run-rpc_pipefs.mount.d/10-aipod-lab.conf <<'CONF'
[Unit]
ConditionPathExists=/sys/module/sunrpc
CONF

# The kubelet's process: a Kubernetes node runs kubelet.service, and a running kubelet registers
# its Node again when the Node is deleted. The lab's node agent (lab/kubernetes/nodes.py) plays
# the kubelet's API side and stops registering a host once this unit is stopped there.
cat > /etc/systemd/system/kubelet.service <<'UNIT'
[Unit]
Description=kubelet (lab stand-in: the process only; lab/kubernetes/nodes.py plays its API side)

[Service]
ExecStart=/bin/sleep infinity

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/kubelet.service /etc/systemd/system/multi-user.target.wants/kubelet.service

# systemd makes a fresh machine-id on first boot of each host.
: > /etc/machine-id
rm -f /var/lib/dbus/machine-id
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /tmp/* /var/log/*.log
