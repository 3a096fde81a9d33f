# Sourced by images/build.sh and the image tests: settings podman and buildah need here.
# Without CAP_SYS_RESOURCE (bit 24 of the effective capabilities) runc cannot set the
# default rlimits, so use images/containers.conf, unless the caller chose a file already.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  cap_eff=$(awk '/^CapEff:/{print $2}' /proc/self/status)
  if [ $(( 0x$cap_eff >> 24 & 1 )) -eq 0 ]; then
    CONTAINERS_CONF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/containers.conf"
    export CONTAINERS_CONF
  fi
fi
