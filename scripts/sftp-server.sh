#!/usr/bin/env bash
# A throwaway OpenSSH SFTP server for the tests of the `sftp` connector and the file-drop example.
#
#   scripts/sftp-server.sh start DIR   installs Debian's openssh-server when sshd is missing (needs
#                                      root), then starts a separate sshd on 127.0.0.1 on a free high
#                                      port, with its own config, host key, test user and keys, all in
#                                      DIR (created; its parents must be searchable by every user).
#                                      Prints the facts as KEY='value' lines, also kept in DIR/env for
#                                      the tests (PIPEC_TEST_SFTP_ENV=DIR/env).
#   scripts/sftp-server.sh stop DIR    stops that sshd and removes DIR.
#
# Each server has a test user of its own, `pipec-sftp-PORT` (several test files may run a server
# at once), with a random password, removed by `stop`; it may only use SFTP (ForceCommand
# internal-sftp), starting in DIR/files, which it owns. The system's own sshd, if
# any, is left alone: this one reads only DIR/sshd_config.
set -euo pipefail

die() { echo "sftp-server: $*" >&2; exit 1; }

sshd_path() {
  for candidate in /usr/sbin/sshd /usr/local/sbin/sshd; do
    [ -x "$candidate" ] && { echo "$candidate"; return 0; }
  done
  command -v sshd 2>/dev/null || return 1
}

install_sshd() {
  sshd_path >/dev/null && return 0
  [ "$(id -u)" = 0 ] || die "sshd is missing and installing openssh-server needs root"
  # Test files may start servers at once: one installs, the others wait for it. The lock's file
  # descriptor is closed before sshd starts (a daemon inheriting it would hold the lock).
  exec 9>/tmp/pipec-sftp-install.lock
  flock 9
  if ! sshd_path >/dev/null; then
    echo "sftp-server: installing openssh-server" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends openssh-server >&2; }; then
      exec 9>&-
      die "apt-get install openssh-server failed"
    fi
    # The package's own service is not wanted here: the tests run their own sshd.
    if command -v service >/dev/null 2>&1; then service ssh stop >/dev/null 2>&1 || true; fi
  fi
  exec 9>&-
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

start() {
  local dir="$1"
  [ "$(id -u)" = 0 ] || die "must run as root (it creates a test user and starts sshd)"
  install_sshd
  local sshd
  sshd="$(sshd_path)" || die "sshd not found after installing openssh-server"
  mkdir -p "$dir" /run/sshd
  dir="$(cd "$dir" && pwd)"
  chmod 755 "$dir"
  local port
  port="$(free_port)"
  local SFTP_USER="pipec-sftp-$port"
  if ! id "$SFTP_USER" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$SFTP_USER" \
      || die "could not create the user $SFTP_USER"
  fi
  local password
  password="$(node -e "console.log(require('crypto').randomBytes(18).toString('base64url'))")"
  echo "$SFTP_USER:$password" | chpasswd || die "could not set the password of $SFTP_USER"
  usermod --unlock "$SFTP_USER" >/dev/null 2>&1 || true

  rm -f "$dir/host_key" "$dir/host_key.pub" "$dir/user_key" "$dir/user_key.pub"
  ssh-keygen -q -t ed25519 -N '' -C pipec-test-host -f "$dir/host_key"
  ssh-keygen -q -t ed25519 -N '' -C pipec-test-user -f "$dir/user_key"
  # A second user key that the server does not know, for the refused-key test.
  rm -f "$dir/other_key" "$dir/other_key.pub"
  ssh-keygen -q -t ed25519 -N '' -C pipec-test-other -f "$dir/other_key"
  cp "$dir/user_key.pub" "$dir/authorized_keys"
  chmod 644 "$dir/authorized_keys" "$dir/user_key" "$dir/other_key"
  mkdir -p "$dir/files"
  chown "$SFTP_USER" "$dir/files"
  chmod 755 "$dir/files"

  cat >"$dir/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
AllowUsers $SFTP_USER
PasswordAuthentication yes
PubkeyAuthentication yes
KbdInteractiveAuthentication no
PermitRootLogin no
UsePAM no
StrictModes no
X11Forwarding no
AllowTcpForwarding no
MaxStartups 100:30:200
MaxSessions 50
Subsystem sftp internal-sftp
ForceCommand internal-sftp -d $dir/files
EOF
  "$sshd" -t -f "$dir/sshd_config" || die "sshd refused its config"
  "$sshd" -f "$dir/sshd_config" -E "$dir/sshd.log" || die "sshd did not start (see $dir/sshd.log)"
  for _ in $(seq 1 50); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.1
  done
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || die "sshd is not listening on port $port (see $dir/sshd.log)"

  local fingerprint host_key
  fingerprint="$(ssh-keygen -l -E sha256 -f "$dir/host_key.pub" | awk '{print $2}')"
  host_key="$(cut -d' ' -f1-2 "$dir/host_key.pub")"
  cat >"$dir/env" <<EOF
PIPEC_TEST_SFTP_HOST='127.0.0.1'
PIPEC_TEST_SFTP_PORT='$port'
PIPEC_TEST_SFTP_USER='$SFTP_USER'
PIPEC_TEST_SFTP_PASSWORD='$password'
PIPEC_TEST_SFTP_KEY_FILE='$dir/user_key'
PIPEC_TEST_SFTP_OTHER_KEY_FILE='$dir/other_key'
PIPEC_TEST_SFTP_HOST_KEY='$host_key'
PIPEC_TEST_SFTP_HOST_FINGERPRINT='$fingerprint'
PIPEC_TEST_SFTP_ROOT='$dir/files'
EOF
  cat "$dir/env"
}

stop() {
  local dir="$1"
  if [ -f "$dir/sshd.pid" ]; then
    local pid
    pid="$(cat "$dir/sshd.pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  if [ -f "$dir/env" ]; then
    local user
    user="$(sed -n "s/^PIPEC_TEST_SFTP_USER='\(pipec-sftp-[0-9]*\)'$/\1/p" "$dir/env")"
    if [ -n "$user" ] && id "$user" >/dev/null 2>&1; then userdel "$user" >/dev/null 2>&1 || true; fi
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) [ -n "${2:-}" ] || die "usage: $0 start DIR"; start "$2" ;;
  stop) [ -n "${2:-}" ] || die "usage: $0 stop DIR"; stop "$2" ;;
  *) die "usage: $0 start|stop DIR" ;;
esac
