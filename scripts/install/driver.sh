# Espressif's ESP-Hosted-FG Linux driver: where its source comes from, which release it is, the
# module options for this board, and the DKMS package that builds it for every kernel.
# Sourced by scripts/install.sh.

# The pinned source: a commit of espressif/esp-hosted whose driver builds on current Raspberry Pi
# OS kernels (esp_kernel_port.h covers 6.9+ and 6.15+). esp-hosted-fg.sha256 beside this file
# lists the SHA-256 of every file of it the installer uses; the archive's other files are unused.
PINNED_COMMIT=0ed22cbc04b65f4920ba83da005430426820e82d
PINNED_ARCHIVE_URL="https://github.com/espressif/esp-hosted/archive/$PINNED_COMMIT.tar.gz"
PINNED_MANIFEST="${BASH_SOURCE[0]%/*}/esp-hosted-fg.sha256"

# The parts of Espressif's tree the installer uses, relative to the folder holding esp_hosted_fg/.
DRIVER_DIR=esp_hosted_fg/host/linux/host_driver/esp32
DRIVER_INCLUDE_DIR=esp_hosted_fg/common/include
VERSION_HEADER=$DRIVER_INCLUDE_DIR/esp_fw_version.h
OVERLAY_SOURCE=esp_hosted_fg/host/linux/host_control/spidev_disabler.dts

# driver_tree DIR: the folder holding esp_hosted_fg/ for a checkout, a release tree, or the
# esp_hosted_fg folder itself; nothing when DIR is none of them.
driver_tree() {
  local dir="$1"
  if [ -f "$dir/$DRIVER_DIR/Makefile" ]; then
    (cd "$dir" && pwd)
  elif [ -f "$dir/host/linux/host_driver/esp32/Makefile" ] && [ "$(basename "$(cd "$dir" && pwd)")" = esp_hosted_fg ]; then
    (cd "$dir/.." && pwd)
  fi
}

# fetch_pinned_driver WORKDIR: downloads the pinned archive, checks every file used against the
# manifest, prints the tree's folder.
fetch_pinned_driver() {
  local work="$1" archive="$1/esp-hosted.tar.gz"
  say "fetching Espressif's esp-hosted at $PINNED_COMMIT" >&2
  if command -v curl > /dev/null; then
    curl -fsSL --retry 3 -o "$archive" "$PINNED_ARCHIVE_URL" || die "could not download $PINNED_ARCHIVE_URL"
  elif command -v wget > /dev/null; then
    wget -q -O "$archive" "$PINNED_ARCHIVE_URL" || die "could not download $PINNED_ARCHIVE_URL"
  else
    die "neither curl nor wget is installed to download the ESP-Hosted driver (apt-get install curl, or pass --driver-source DIR)"
  fi
  unpack_checked_driver "$archive" "$work/tree"
}

# unpack_checked_driver ARCHIVE DEST: unpacks the archive's driver parts into DEST and checks
# them against the pinned manifest (the exact set of files, each file's SHA-256); prints DEST.
unpack_checked_driver() {
  local archive="$1" dest="$2" top listed found
  mkdir -p "$dest"
  top=$(tar -tzf "$archive" 2> /dev/null | head -n 1 | cut -d/ -f1) || true
  [ -n "$top" ] || die "$archive is not a .tar.gz archive"
  tar -xzf "$archive" -C "$dest" --strip-components=1 \
    "$top/$DRIVER_DIR" "$top/$DRIVER_INCLUDE_DIR" "$top/$OVERLAY_SOURCE" 2> /dev/null ||
    die "$archive does not hold Espressif's ESP-Hosted-FG driver ($DRIVER_DIR)"
  listed=$(awk '{ print $2 }' "$PINNED_MANIFEST" | LC_ALL=C sort)
  found=$(cd "$dest" && find esp_hosted_fg -type f | LC_ALL=C sort)
  [ "$listed" = "$found" ] || die "$archive: its driver files are not those of esp-hosted $PINNED_COMMIT (SHA-256 manifest $PINNED_MANIFEST)"
  (cd "$dest" && sha256sum --quiet --strict -c "$PINNED_MANIFEST" > /dev/null 2>&1) ||
    die "$archive: SHA-256 mismatch against esp-hosted $PINNED_COMMIT (manifest $PINNED_MANIFEST): not installing it"
  echo "$dest"
}

# driver_release TREE: the firmware release the driver accepts, as esp_fw_verify.h composes it
# (RELEASE_VERSION = PROJECT_NAME "-" MAJOR_1.MAJOR_2.MINOR.PATCH_1.PATCH_2 from esp_fw_version.h).
driver_release() {
  local header="$1/$VERSION_HEADER" release
  [ -f "$header" ] || return 1
  release=$(awk '
    $1 == "#define" { value[$2] = $3; gsub(/"/, "", value[$2]) }
    END {
      printf "%s-%s.%s.%s.%s.%s", value["PROJECT_NAME"], value["PROJECT_VERSION_MAJOR_1"],
        value["PROJECT_VERSION_MAJOR_2"], value["PROJECT_VERSION_MINOR"],
        value["PROJECT_REVISION_PATCH_1"], value["PROJECT_REVISION_PATCH_2"]
    }' "$header")
  [[ $release =~ ^FG-[0-9]+(\.[0-9]+){4}$ ]] || return 1
  echo "$release"
}

# The board, from the device tree the firmware hands the kernel ('' when unknown).
board_model() {
  local model="$root/proc/device-tree/model"
  [ -f "$model" ] && tr -d '\0' < "$model" || true
}

# gpio_base MODEL: the global number of header GPIO 0: the base of the main gpiochip (Pi 5: the
# RP1's, pinctrl-rp1; Pi 4 and earlier: pinctrl-bcm2711 / pinctrl-bcm2835). 512 and more on
# current kernels, 0 on old ones. Prints "BASE LABEL"; nothing when no such chip is there.
gpio_base() {
  local model="$1" labels chip label found base
  case "$model" in
    *"Raspberry Pi 5"* | *"Compute Module 5"*) labels="pinctrl-rp1" ;;
    *"Raspberry Pi"*) labels="pinctrl-bcm2711 pinctrl-bcm2835" ;;
    *) labels="pinctrl-rp1 pinctrl-bcm2711 pinctrl-bcm2835" ;;
  esac
  for label in $labels; do
    for chip in "$root"/sys/class/gpio/gpiochip*; do
      [ -f "$chip/label" ] && [ -f "$chip/base" ] || continue
      # One-line files, read without a process each.
      found='' base=''
      IFS= read -r found < "$chip/label" || true
      if [ "$found" = "$label" ]; then
        IFS= read -r base < "$chip/base" || true
        echo "$base $label"
        return 0
      fi
    done
  done
}

# The module's options, named and ordered as rpi_init.sh passes them (populate_module_params);
# the parameters are main.c's module_param()s. SPI mode 2 for an ESP32, 3 for the others
# (SPI_setup.md, "Module Parameters").
module_options() {
  local base="$1" spi_mode=3
  [ "$chip" = esp32 ] && spi_mode=2
  if [ "$transport" = spi ]; then
    echo "options esp32_spi resetpin=$((base + reset_gpio)) clockspeed=$spi_clock_mhz spi_bus=$spi_bus spi_cs=$spi_cs spi_mode=$spi_mode spi_handshake=$((base + handshake_gpio)) spi_dataready=$((base + dataready_gpio))"
  else
    # SDIO: the reset pin only; the bus clock stays the device tree's (SDIO_setup.md).
    echo "options esp32_sdio resetpin=$((base + reset_gpio))"
  fi
}

# dkms_conf RELEASE: the DKMS recipe. It builds the way rpi_init.sh's build_module does (make in
# the driver's folder with target=, KERNEL=, ARCH=, Bluetooth and the raw throughput test off),
# against the headers of the kernel DKMS builds for; AUTOINSTALL rebuilds it for each new kernel.
dkms_conf() {
  local release="$1" module="esp32_$transport"
  cat << CONF
# Espressif's ESP-Hosted-FG driver ($module), packaged by Nestbox's installer (scripts/install.sh).
PACKAGE_NAME="esp-hosted"
PACKAGE_VERSION="$release"
# The kernel's ARCH for the machine DKMS builds on (Espressif's Makefile defaults to arm64).
case "\${arch}" in
  aarch64 | arm64) esp_hosted_arch=arm64 ;;
  arm*) esp_hosted_arch=arm ;;
  x86_64 | i?86) esp_hosted_arch=x86 ;;
  *) esp_hosted_arch="\${arch}" ;;
esac
MAKE[0]="cd $DRIVER_DIR && make target=$transport KERNEL=\${kernel_source_dir} ARCH=\${esp_hosted_arch} CONFIG_BT_ENABLED=n CONFIG_TEST_RAW_TP=n"
CLEAN="cd $DRIVER_DIR && make clean KERNEL=\${kernel_source_dir} ARCH=\${esp_hosted_arch}"
BUILT_MODULE_NAME[0]="$module"
BUILT_MODULE_LOCATION[0]="$DRIVER_DIR/"
DEST_MODULE_LOCATION[0]="/updates/dkms"
AUTOINSTALL="yes"
CONF
}

# stage_dkms_package TREE RELEASE: /usr/src/esp-hosted-RELEASE/ with Espressif's layout where the
# Makefile needs it (it includes ../../../../common/include). Returns 0 when anything changed.
stage_dkms_package() {
  local tree="$1" release="$2" dest="/usr/src/esp-hosted-$2" changed=1 part
  for part in "$DRIVER_DIR" "$DRIVER_INCLUDE_DIR"; do
    if sync_tree "$tree/$part" "$dest/$part"; then changed=0; fi
  done
  if dkms_conf "$release" | put "$dest/dkms.conf" 644; then changed=0; fi
  return "$changed"
}

# The kernel headers DKMS builds against: Raspberry Pi OS Bookworm names them after the running
# kernel (linux-headers-6.12.25+rpt-rpi-v8) with a package per flavour that follows upgrades
# (linux-headers-rpi-v8); older releases ship raspberrypi-kernel-headers.
kernel_header_packages() {
  local kernel flavour
  kernel=$(uname -r)
  if apt-cache show "linux-headers-$kernel" > /dev/null 2>&1; then
    echo "linux-headers-$kernel"
    flavour=${kernel##*+rpt-}
    if [ "$flavour" != "$kernel" ] && apt-cache show "linux-headers-$flavour" > /dev/null 2>&1; then
      echo "linux-headers-$flavour"
    fi
  elif apt-cache show raspberrypi-kernel-headers > /dev/null 2>&1; then
    echo raspberrypi-kernel-headers
  fi
}

# dkms_install RELEASE CHANGED: registers, builds and installs the package for the running kernel
# (and, through AUTOINSTALL, every later one).
dkms_install() {
  local release="$1" changed="$2" kernel
  kernel=$(uname -r)
  if [ "$changed" = yes ] && dkms status -m esp-hosted -v "$release" | grep -q .; then
    dkms remove -m esp-hosted -v "$release" --all
  fi
  dkms status -m esp-hosted -v "$release" | grep -q . || dkms add -m esp-hosted -v "$release"
  if ! dkms status -m esp-hosted -v "$release" -k "$kernel" | grep -q installed; then
    say "building Espressif's driver for kernel $kernel (DKMS)"
    dkms build -m esp-hosted -v "$release" -k "$kernel"
    dkms install -m esp-hosted -v "$release" -k "$kernel"
  fi
}

# forget_driver RELEASE: takes a release's DKMS package off the box.
forget_driver() {
  local release="$1"
  [ -n "$release" ] || return 0
  if [ -z "$staging" ] && command -v dkms > /dev/null && dkms status -m esp-hosted -v "$release" | grep -q .; then
    dkms remove -m esp-hosted -v "$release" --all
  fi
  if [ -d "$root/usr/src/esp-hosted-$release" ]; then
    rm -rf "$root/usr/src/esp-hosted-$release"
    say "removed $root/usr/src/esp-hosted-$release"
  fi
}
