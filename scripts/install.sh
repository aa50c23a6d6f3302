#!/usr/bin/env bash
# Installs Nestbox on a Debian or Raspberry Pi OS box: system user, directories, build, systemd
# unit, enable. Safe to run again: it updates the code and keeps data and site settings.
#
# Usage: sudo scripts/install.sh [--prefix /opt/nestbox] [--no-start]
#        scripts/install.sh --root DIR [--skip-build]   (stage into DIR, for packaging and tests)
set -euo pipefail

usage() {
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
}

prefix=/opt/nestbox
root=
start=yes
build=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
    --root) root=${2:?--root needs a directory}; shift 2 ;;
    --no-start) start=no; shift ;;
    --skip-build) build=no; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

source_dir=$(cd "$(dirname "$0")/.." && pwd)
staging=${root:+yes}
say() { printf '[install] %s\n' "$*"; }

if [ -z "$staging" ] && [ "$(id -u)" != 0 ]; then
  echo "install.sh: run as root (sudo), or use --root DIR to stage" >&2
  exit 1
fi

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "install.sh: Node.js 20 or newer is needed (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

if [ -z "$staging" ]; then
  missing=()
  for package in python3 make g++; do command -v "$package" >/dev/null || missing+=("$package"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing build tools: ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 make g++
  fi
  # The network layer's system tools (NESTBOX_NETWORK=on): ip, the DHCP client, the setup AP's
  # DHCP server. dnsmasq-base, not dnsmasq: no system-wide dnsmasq service to collide with ours.
  network_packages=()
  command -v ip >/dev/null || network_packages+=(iproute2)
  command -v udhcpc >/dev/null || [ -x /usr/sbin/udhcpc ] || [ -x /sbin/udhcpc ] || network_packages+=(udhcpc)
  command -v dnsmasq >/dev/null || [ -x /usr/sbin/dnsmasq ] || network_packages+=(dnsmasq-base)
  if [ "${#network_packages[@]}" -gt 0 ]; then
    say "installing the network layer's tools: ${network_packages[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${network_packages[@]}"
  fi
  if ! id nestbox >/dev/null 2>&1; then
    say "creating system user nestbox"
    adduser --system --group --home /var/lib/nestbox --no-create-home nestbox
  fi
  usermod -a -G dialout nestbox
fi

app_dir="$root$prefix"
say "copying Nestbox to $app_dir"
mkdir -p "$app_dir"
# Code is replaced; node_modules is kept so an update does not recompile sqlite3 needlessly.
tar -C "$source_dir" --exclude=./node_modules --exclude=./dist --exclude=./data --exclude=./.git -cf - . | tar -C "$app_dir" -xf -

if [ "$build" = yes ]; then
  say "installing dependencies and building (sqlite3 compiles: a few minutes on a Pi)"
  (cd "$app_dir" && JOBS=max npm ci --no-audit --no-fund && node node_modules/typescript/bin/tsc -p . && node scripts/bundle.mjs && npm prune --omit=dev --no-audit --no-fund)
fi

unit_dir="$root/etc/systemd/system"
mkdir -p "$unit_dir" "$root/etc/default"
sed "s#/opt/nestbox#$prefix#g" "$source_dir/systemd/nestbox.service" > "$unit_dir/nestbox.service"
if [ ! -f "$root/etc/default/nestbox" ]; then
  cat > "$root/etc/default/nestbox" <<'SETTINGS'
# Nestbox site settings (see README). Lines are NESTBOX_NAME=value.
# NESTBOX_BASE_URL=http://nestbox.local
# NESTBOX_MQTT_URL=mqtt://homeassistant.local:1883
# NESTBOX_MQTT_USERNAME=nestbox
# NESTBOX_MQTT_PASSWORD=
# NESTBOX_SETUP_PASSPHRASE=
# NESTBOX_HOSTNAME=nestbox
# NESTBOX_SETUP_AP_ADDRESS=192.168.4.1/24
SETTINGS
  chmod 0640 "$root/etc/default/nestbox"
  say "wrote $root/etc/default/nestbox (site settings; kept on reinstall)"
fi

# The box's label (setup network, its key, QR code, dashboard address), once per box: the setup
# network's name comes from the coprocessor, so wait for the daemon to have met it.
print_label_once() {
  local label=/var/lib/nestbox/label/nestbox-label.png
  [ "$start" = yes ] && [ ! -f "$label" ] || return 0
  say "printing the box's label (waiting for the daemon to meet the Wi-Fi coprocessor)"
  for _ in $(seq 1 30); do
    if (set -a; . /etc/default/nestbox; NESTBOX_DATA_DIR=/var/lib/nestbox NESTBOX_NETWORK=${NESTBOX_NETWORK:-on} \
      runuser -u nestbox -- "$(command -v node)" "$prefix/dist/bundle/admin.js" label >/dev/null 2>&1); then
      say "label: $label (and .svg): print it and stick it on the box; reprint: npm run admin -- label"
      return 0
    fi
    sleep 3
  done
  say "no label yet (the coprocessor has not answered): run npm run admin -- label once it has"
}

if [ -z "$staging" ]; then
  chgrp nestbox /etc/default/nestbox
  systemctl daemon-reload
  systemctl enable nestbox.service
  if [ "$start" = yes ]; then systemctl restart nestbox.service; fi
  print_label_once
  say "done: systemctl status nestbox; journalctl -u nestbox -f"
else
  say "staged into $root"
fi
