# The installer's steps on the machine itself (never under --root) and the ones every run takes:
# Node, Debian packages, the user, the code, the settings, systemd. Sourced by scripts/install.sh.

NODE_NEEDED=20.17

# The daemon needs Node.js 20.17 or newer; Raspberry Pi OS Bookworm ships 18. Staging only warns:
# the Node that runs the box is the box's own.
check_node() {
  local found
  found=$(node --version 2> /dev/null || echo none)
  if [ "$found" != none ] && printf '%s\n%s\n' "v$NODE_NEEDED" "$found" | sort -V -C; then return 0; fi
  local how="Node.js $NODE_NEEDED or newer is needed (found: $found). Raspberry Pi OS Bookworm ships 18: install 20 from NodeSource (curl -fsSL https://deb.nodesource.com/setup_20.x | sudo bash - && sudo apt-get install -y nodejs), or use Raspberry Pi OS Trixie (Node 20), then run this again"
  [ -n "$staging" ] && say "warning: $how" && return 0
  die "$how"
}

apt_install() {
  say "installing $*"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

# DKMS, dtc and the running kernel's headers, for the driver's build.
install_driver_packages() {
  local packages=() headers
  command -v dkms > /dev/null || packages+=(dkms)
  command -v dtc > /dev/null || packages+=(device-tree-compiler)
  [ -d "/lib/modules/$(uname -r)/build" ] || {
    [ -n "$(kernel_header_packages)" ] || apt-get update -qq
    mapfile -t headers < <(kernel_header_packages)
    [ "${#headers[@]}" -gt 0 ] || die "no kernel headers package for kernel $(uname -r) (linux-headers-$(uname -r) or raspberrypi-kernel-headers): the driver cannot be built"
    packages+=("${headers[@]}")
  }
  [ "${#packages[@]}" -eq 0 ] || apt_install "${packages[@]}"
}

# Build tools, the network layer's tools and the system user.
prepare_host() {
  local missing=() network_packages=()
  for package in python3 make g++; do command -v "$package" > /dev/null || missing+=("$package"); done
  [ "${#missing[@]}" -eq 0 ] || apt_install python3 make g++
  # The network layer's system tools (NESTBOX_NETWORK=on): ip, the DHCP client, the setup AP's
  # DHCP server. dnsmasq-base, not dnsmasq: no system-wide dnsmasq service to collide with ours.
  command -v ip > /dev/null || network_packages+=(iproute2)
  command -v udhcpc > /dev/null || [ -x /usr/sbin/udhcpc ] || [ -x /sbin/udhcpc ] || network_packages+=(udhcpc)
  command -v dnsmasq > /dev/null || [ -x /usr/sbin/dnsmasq ] || network_packages+=(dnsmasq-base)
  [ "${#network_packages[@]}" -eq 0 ] || apt_install "${network_packages[@]}"
  if ! id nestbox > /dev/null 2>&1; then
    say "creating system user nestbox"
    adduser --system --group --home /var/lib/nestbox --no-create-home nestbox
  fi
  # dialout: the UART of the seed-era firmware (serial:).
  id -nG nestbox | grep -qw dialout || usermod -a -G dialout nestbox
}

install_app() {
  local app_dir="$root$prefix"
  say "copying Nestbox to $app_dir"
  mkdir -p "$app_dir"
  # Code is replaced; node_modules is kept so an update does not recompile sqlite3 needlessly.
  tar -C "$source_dir" --exclude=./node_modules --exclude=./dist --exclude=./data --exclude=./.git -cf - . | tar -C "$app_dir" -xf -
  if [ "$build" = yes ]; then
    say "installing dependencies and building (sqlite3 compiles: a few minutes on a Pi)"
    (cd "$app_dir" && JOBS=max npm ci --no-audit --no-fund && node node_modules/typescript/bin/tsc -p . && node scripts/bundle.mjs && npm prune --omit=dev --no-audit --no-fund)
  fi
  sed "s#/opt/nestbox#$prefix#g" "$source_dir/systemd/nestbox.service" | put "$UNIT_DIR/nestbox.service" 644 || true
}

# /etc/default/nestbox: written once, then the owner's (only the driver's release line is kept
# current by later runs).
install_settings() {
  [ -f "$root/etc/default/nestbox" ] && return 0
  put /etc/default/nestbox 640 << 'SETTINGS' || true
# Nestbox site settings (see README). Lines are NESTBOX_NAME=value.
# The Wi-Fi coprocessor: the ESP-Hosted driver's control device (SPI or SDIO).
NESTBOX_COPROC=esps:/dev/esps0
# NESTBOX_BASE_URL=http://nestbox.local
# NESTBOX_MQTT_URL=mqtt://homeassistant.local:1883
# NESTBOX_MQTT_USERNAME=nestbox
# NESTBOX_MQTT_PASSWORD=
# NESTBOX_SETUP_PASSPHRASE=
# NESTBOX_HOSTNAME=nestbox
# NESTBOX_SETUP_AP_ADDRESS=192.168.4.1/24
SETTINGS
  say "wrote $root/etc/default/nestbox (site settings; kept on reinstall)"
}

# The box's label (setup network, its key, QR code, dashboard address), once per box: the setup
# network's name comes from the coprocessor, so wait for the daemon to have met it.
print_label_once() {
  local label=/var/lib/nestbox/label/nestbox-label.png
  [ "$start" = yes ] && [ ! -f "$label" ] || return 0
  say "printing the box's label (waiting for the daemon to meet the Wi-Fi coprocessor)"
  for _ in $(seq 1 30); do
    if (set -a; . /etc/default/nestbox; NESTBOX_DATA_DIR=/var/lib/nestbox NESTBOX_NETWORK=${NESTBOX_NETWORK:-on} \
      runuser -u nestbox -- "$(command -v node)" "$prefix/dist/bundle/admin.js" label > /dev/null 2>&1); then
      say "label: $label (and .svg): print it and stick it on the box; reprint: npm run admin -- label"
      return 0
    fi
    sleep 3
  done
  say "no label yet (the coprocessor has not answered): run npm run admin -- label once it has"
}

after_reboot_checks() {
  say "after the reboot, check:"
  say "  dmesg | grep -i -e esp -e firmware   the chip's firmware release ($release) and no 'Incompatible ESP firmware release'"
  say "  ip link show ethsta0; ip link show ethap0   both interfaces exist"
  say "  ls -l /dev/esps0   crw-rw---- root nestbox"
  say "  systemctl status esp-hosted nestbox; curl -s http://localhost/healthz"
}

# systemd, the DKMS build and the services, on the box itself.
activate() {
  chgrp nestbox /etc/default/nestbox
  if [ "$transport" != none ]; then
    dkms_install "$release" "$driver_changed"
    udevadm control --reload-rules || true
    ! systemctl is-active --quiet NetworkManager || systemctl reload NetworkManager || true
  fi
  systemctl daemon-reload
  systemctl enable nestbox.service
  if [ "$transport" != none ]; then systemctl enable esp-hosted.service; fi
  if [ "$boot_changed" = yes ]; then
    say "REBOOT NEEDED: the boot config ($config) changed; run: sudo reboot"
    after_reboot_checks
    say "the label: once the box is up again, sudo -u nestbox npm --prefix $prefix run admin -- label"
    return 0
  fi
  if [ "$start" = yes ]; then
    # A new driver build takes effect by loading it again (the daemon stops and starts with it).
    if [ "$transport" != none ] && [ "$driver_changed" = yes ]; then systemctl restart esp-hosted.service || true; fi
    systemctl restart nestbox.service
  fi
  [ "$transport" = none ] || after_reboot_checks
  print_label_once
  say "done: systemctl status nestbox; journalctl -u nestbox -f"
}

uninstall_nestbox() {
  if [ -z "$staging" ] && [ -f "$UNIT_DIR/nestbox.service" ]; then systemctl disable --now nestbox.service || true; fi
  remove_driver_files
  forget_driver "$(recorded_release)"
  unput "$UNIT_DIR/nestbox.service"
  if [ -d "$root$prefix" ]; then
    rm -rf -- "$root$prefix"
    say "removed $root$prefix"
  fi
  if [ -z "$staging" ]; then
    systemctl daemon-reload
    udevadm control --reload-rules || true
  fi
  say "uninstalled; kept the data (/var/lib/nestbox), /etc/default/nestbox and the nestbox user"
}
