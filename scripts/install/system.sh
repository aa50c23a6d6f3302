# The system's side of the driver bring-up: boot config, udev, NetworkManager and dhcpcd, the
# units and the polkit rule. Sourced by scripts/install.sh; each function returns 0 when it
# changed something.

CONFIG_DIR="${BASH_SOURCE[0]%/*}/config"
MODPROBE_CONF=/etc/modprobe.d/nestbox-esp-hosted.conf
UDEV_RULE=/etc/udev/rules.d/90-nestbox-esps.rules
NM_CONF=/etc/NetworkManager/conf.d/90-nestbox.conf
DHCPCD_CONF=/etc/dhcpcd.conf
POLKIT_RULE=/etc/polkit-1/rules.d/50-nestbox-esp-hosted.rules
UNIT_DIR=/etc/systemd/system
DRIVER_UNIT=$UNIT_DIR/esp-hosted.service
DRIVER_DROPIN=$UNIT_DIR/nestbox.service.d/esp-hosted.conf

# The Raspberry Pi's boot config: /boot/firmware/config.txt since Bookworm, /boot/config.txt
# before (SPI_setup.md, 1.2). Prints the path on the box; nothing when neither exists.
boot_config() {
  if [ -f "$root/boot/firmware/config.txt" ]; then
    echo /boot/firmware/config.txt
  elif [ -f "$root/boot/config.txt" ]; then
    echo /boot/config.txt
  fi
}

# The block: Bluetooth off the Pi's UART (disable-bt), then SPI0 on with its spidev on CE0 removed
# (the driver adds its own device there; rpi_init.sh loads spidev_disabler at run time, the block
# at every boot), or the SDIO pins taken from the Pi's own Wi-Fi (SDIO_setup.md, 1.2).
boot_block() {
  echo '[all]'
  echo 'dtoverlay=disable-bt'
  if [ "$transport" = spi ]; then
    echo 'dtparam=spi=on'
    echo 'dtoverlay=spidev_disabler'
  else
    echo 'dtoverlay=sdio,poll_once=off'
  fi
}

# write_boot_config CONFIG TREE: the block and, for SPI, Espressif's overlay compiled the way
# rpi_init.sh compiles it (device_tree_dependency_spi: dtc -O dtb) into the boot folder.
write_boot_config() {
  local config="$1" tree="$2" changed=1 overlay dtbo
  overlay="${config%/*}/overlays/spidev_disabler.dtbo"
  if boot_block | put_block "$config"; then changed=0; fi
  if [ "$transport" = spi ]; then
    dtbo=$(mktemp)
    dtc -q -I dts -O dtb -o "$dtbo" "$tree/$OVERLAY_SOURCE" || die "dtc could not compile $tree/$OVERLAY_SOURCE"
    if put_copy "$dtbo" "$overlay" 644; then changed=0; fi
    rm -f "$dtbo"
  else
    [ -f "$root$overlay" ] && unput "$overlay" && changed=0
  fi
  return "$changed"
}

# write_network_handover: NetworkManager (Raspberry Pi OS's default) and dhcpcd (older releases)
# leave the driver's interfaces to the daemon.
write_network_handover() {
  local changed=1
  if put_copy "$CONFIG_DIR/90-nestbox.conf" "$NM_CONF" 644; then changed=0; fi
  if [ -f "$root$DHCPCD_CONF" ] && echo 'denyinterfaces ethsta0 ethap0' | put_block "$DHCPCD_CONF"; then changed=0; fi
  return "$changed"
}

# write_driver_units MODULE: esp-hosted.service for this transport's module, nestbox.service's
# dependency on it, and the polkit rule that lets the daemon reload it.
write_driver_units() {
  local module="$1" changed=1
  if sed -e "s#^Environment=ESP_HOSTED_MODULE=.*#Environment=ESP_HOSTED_MODULE=$module#" \
    -e "s#/opt/nestbox#$prefix#g" "$source_dir/systemd/esp-hosted.service" | put "$DRIVER_UNIT" 644; then changed=0; fi
  if put_copy "$source_dir/systemd/nestbox.service.d/esp-hosted.conf" "$DRIVER_DROPIN" 644; then changed=0; fi
  if put_copy "$CONFIG_DIR/50-nestbox-esp-hosted.rules" "$POLKIT_RULE" 644; then changed=0; fi
  if put_copy "$CONFIG_DIR/90-nestbox-esps.rules" "$UDEV_RULE" 644; then changed=0; fi
  return "$changed"
}

# remove_driver_files: every driver file the installer writes (--transport none, --uninstall).
remove_driver_files() {
  local config
  config=$(boot_config)
  if [ -z "$staging" ] && [ -f "$root$DRIVER_UNIT" ]; then
    systemctl disable --now esp-hosted.service || true
  fi
  unput "$DRIVER_UNIT" "$DRIVER_DROPIN" "$POLKIT_RULE" "$UDEV_RULE" "$MODPROBE_CONF" "$NM_CONF"
  rmdir "$root$UNIT_DIR/nestbox.service.d" 2> /dev/null || true
  if [ -n "$config" ]; then
    remove_block "$config"
    unput "${config%/*}/overlays/spidev_disabler.dtbo"
  fi
  remove_block "$DHCPCD_CONF"
}

# set_setting NAME VALUE: one line of /etc/default/nestbox, the others kept.
set_setting() {
  local file=/etc/default/nestbox name="$1" value="$2"
  if grep -q "^$name=" "$root$file"; then
    [ "$(grep "^$name=" "$root$file")" = "$name=$value" ] && return 0
    sed "s#^$name=.*#$name=$value#" "$root$file" | put "$file" 640 || true
  else
    { cat "$root$file"; echo "$name=$value"; } | put "$file" 640 || true
  fi
  say "$name=$value in $root$file"
}

# The release recorded by an earlier run ('' when none).
recorded_release() {
  [ -f "$root/etc/default/nestbox" ] && sed -n 's/^NESTBOX_ESP_HOSTED_RELEASE=//p' "$root/etc/default/nestbox" | tail -n 1
}
