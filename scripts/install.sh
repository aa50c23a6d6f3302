#!/usr/bin/env bash
# Installs Nestbox on a Raspberry Pi (or another Debian box): system user, /opt/nestbox, the build,
# the units, site settings, and the Wi-Fi coprocessor's driver (Espressif's ESP-Hosted-FG kernel
# module over SPI or SDIO, built by DKMS, with its boot config, module options and udev rule).
# Safe to run again: a second run changes nothing; data and site settings are kept.
#
# Usage: sudo scripts/install.sh [options]
#   --transport spi|sdio|none   the coprocessor's bus (default spi); none: no driver bring-up
#   --chip esp32|esp32s2|esp32s3|esp32c2|esp32c3|esp32c5|esp32c6   the coprocessor (default esp32)
#   --reset-gpio 6 --handshake-gpio 22 --dataready-gpio 27   header GPIOs (BCM numbers) wired to
#                               the chip's EN/RST, handshake and data ready (Espressif's wiring)
#   --spi-bus 0 --spi-cs 0 --spi-clock-mhz 10   the SPI controller, chip select and clock (1-40)
#   --gpio-base N               global number of header GPIO 0, when the board cannot be read
#   --driver-source DIR|FILE    an esp-hosted checkout or release tree (its release is read from
#                               it), or the pinned archive already downloaded; default: download
#                               the pinned release and check its SHA-256
#   --root DIR                  stage every file under DIR and run nothing on this machine
#   --prefix DIR                where the code goes (default /opt/nestbox)
#   --no-start                  do not start the services   --skip-build   do not npm ci/build
#   --uninstall                 remove what the installer wrote (data and /etc/default/nestbox stay)
#   -h, --help                  this text
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
# A refused option: one line naming it, exit 2, before anything is touched.
refuse() {
  echo "install.sh: $*" >&2
  exit 2
}

transport=spi chip=esp32 reset_gpio=6 handshake_gpio=22 dataready_gpio=27
spi_bus=0 spi_cs=0 spi_clock_mhz=10 gpio_base_option='' driver_source=''
prefix=/opt/nestbox root='' start=yes build=yes uninstall=no
while [ $# -gt 0 ]; do
  case "$1" in
    --transport | --chip | --reset-gpio | --handshake-gpio | --dataready-gpio | --spi-bus | --spi-cs | \
      --spi-clock-mhz | --gpio-base | --driver-source | --root | --prefix)
      [ $# -ge 2 ] && [ -n "$2" ] || refuse "$1 needs a value"
      name=${1#--}
      printf -v "${name//-/_}" '%s' "$2"
      shift 2
      ;;
    --no-start) start=no && shift ;;
    --skip-build) build=no && shift ;;
    --uninstall) uninstall=yes && shift ;;
    -h | --help) usage && exit 0 ;;
    *) refuse "unknown option $1 (see --help)" ;;
  esac
done
gpio_base_option=${gpio_base:-}

number_in() { [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] || refuse "$1 $2: expected a number from $3 to $4"; }
case "$transport" in spi | sdio | none) ;; *) refuse "--transport $transport: expected spi, sdio or none" ;; esac
case "$chip" in
  esp32 | esp32s2 | esp32s3 | esp32c2 | esp32c3 | esp32c5 | esp32c6) ;;
  *) refuse "--chip $chip: expected esp32, esp32s2, esp32s3, esp32c2, esp32c3, esp32c5 or esp32c6" ;;
esac
# SDIO_setup.md's supported targets.
if [ "$transport" = sdio ]; then
  case "$chip" in esp32 | esp32c5 | esp32c6) ;; *) refuse "--chip $chip: SDIO needs an esp32, esp32c5 or esp32c6 (use --transport spi)" ;; esac
fi
number_in --reset-gpio "$reset_gpio" 0 27
number_in --handshake-gpio "$handshake_gpio" 0 27
number_in --dataready-gpio "$dataready_gpio" 0 27
number_in --spi-bus "$spi_bus" 0 6
number_in --spi-cs "$spi_cs" 0 2
# rpi_init.sh's verify_clock_freq: 40 MHz at most over SPI.
number_in --spi-clock-mhz "$spi_clock_mhz" 1 40
[ -z "$gpio_base_option" ] || number_in --gpio-base "$gpio_base_option" 0 4096
if [ "$transport" = spi ] && { [ "$handshake_gpio" = "$dataready_gpio" ] || [ "$reset_gpio" = "$handshake_gpio" ] || [ "$reset_gpio" = "$dataready_gpio" ]; }; then
  refuse "--reset-gpio, --handshake-gpio and --dataready-gpio must be three different GPIOs"
fi
[[ $prefix == /?* ]] && [ "$prefix" != / ] || refuse "--prefix $prefix: expected an absolute folder other than /"
[ -z "$driver_source" ] || [ -e "$driver_source" ] || refuse "--driver-source $driver_source: no such file or folder"
[ -z "$root" ] || [ ! -e "$root" ] || [ -d "$root" ] || refuse "--root $root: not a folder"

source_dir=$(cd "$(dirname "$0")/.." && pwd)
staging=${root:+yes}
# shellcheck source=install/files.sh
. "$source_dir/scripts/install/files.sh"
# shellcheck source=install/driver.sh
. "$source_dir/scripts/install/driver.sh"
# shellcheck source=install/system.sh
. "$source_dir/scripts/install/system.sh"
# shellcheck source=install/host.sh
. "$source_dir/scripts/install/host.sh"

if [ -z "$staging" ] && [ "$(id -u)" != 0 ]; then die "run as root (sudo), or use --root DIR to stage"; fi
[ -z "$root" ] || { mkdir -p "$root" && root=$(cd "$root" && pwd); }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [ "$uninstall" = yes ]; then
  uninstall_nestbox
  exit 0
fi

check_node

# Everything that can refuse the run is settled before the first change.
if [ "$transport" != none ]; then
  config=$(boot_config)
  [ -n "$config" ] || die "no $root/boot/firmware/config.txt or $root/boot/config.txt: not a Raspberry Pi OS system? (--transport none installs without the driver)"
  model=$(board_model)
  if [ -n "$gpio_base_option" ]; then
    base=$gpio_base_option controller="--gpio-base"
  else
    read -r base controller <<< "$(gpio_base "$model")" || true
    [ -n "${base:-}" ] || die "found no Raspberry Pi GPIO controller (pinctrl-rp1, pinctrl-bcm2711, pinctrl-bcm2835) in $root/sys/class/gpio for '${model:-an unknown board}': pass --gpio-base N"
  fi
  [ -n "$staging" ] || install_driver_packages
  command -v dtc > /dev/null || [ "$transport" != spi ] ||
    die "dtc is not installed to compile the SPI overlay (apt-get install device-tree-compiler)"
  if [ -z "$driver_source" ]; then
    tree=$(fetch_pinned_driver "$scratch")
  elif [ -f "$driver_source" ]; then
    tree=$(unpack_checked_driver "$driver_source" "$scratch/tree")
  else
    tree=$(driver_tree "$driver_source")
    [ -n "$tree" ] || refuse "--driver-source $driver_source: no $DRIVER_DIR/Makefile there (an esp-hosted checkout or release tree)"
  fi
  release=$(driver_release "$tree") || die "no firmware release in $tree/$VERSION_HEADER (esp-hosted older than FG-1.0.0.0.0?)"
  [ "$transport" != spi ] || [ -f "$tree/$OVERLAY_SOURCE" ] || die "no $tree/$OVERLAY_SOURCE to compile"
fi

[ -n "$staging" ] || prepare_host
install_app
install_settings

driver_changed=no boot_changed=no units_changed=no
if [ "$transport" = none ]; then
  remove_driver_files
  forget_driver "$(recorded_release)"
else
  previous=$(recorded_release)
  [ -z "$previous" ] || [ "$previous" = "$release" ] || forget_driver "$previous"
  say "ESP-Hosted driver $release over $transport ($chip) for ${model:-this board}: GPIO base $base ($controller)"
  if stage_dkms_package "$tree" "$release"; then driver_changed=yes; fi
  if {
    echo "# Nestbox (scripts/install.sh): $transport to an $chip on ${model:-this board}: header GPIOs reset $reset_gpio,"
    echo "# handshake $handshake_gpio, data ready $dataready_gpio on $controller (base $base)."
    module_options "$base"
  } | put "$MODPROBE_CONF" 644; then driver_changed=yes; fi
  if write_boot_config "$config" "$tree"; then boot_changed=yes; fi
  if write_driver_units "esp32_$transport"; then units_changed=yes; fi
  write_network_handover || true
  set_setting NESTBOX_ESP_HOSTED_RELEASE "$release"
fi

if [ -n "$staging" ]; then
  say "staged into $root"
  [ "$boot_changed" = no ] || say "the boot config changed: the box needs a reboot after these files are in place"
else
  activate
fi
