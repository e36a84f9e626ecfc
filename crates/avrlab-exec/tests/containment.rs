//! What a process inside the sandbox cannot do, checked from inside with real tools, as root and
//! as an unprivileged user: it has no capabilities, cannot make namespaces, mount, or trace, sees
//! no home folder, `/run`, `/sys` or `/etc/shadow`, reaches no host UNIX socket, and cannot write
//! the read-only dependency repository or any host folder it was not given.

use std::io::Read;
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::Duration;

use avrlab_exec::{Limits, Mount, RunSpec, SandboxKind, SandboxPolicy, run};

/// Where the repository appears in the probe's sandbox, as Maven's does.
const REPOSITORY: &str = "/avrlab/maven-repository";

/// A shell script that tries each escape and prints one word per attempt.
fn probe_script(socket: &Path, pristine: &Path) -> String {
    format!(
        r#"
grep '^CapEff:' /proc/self/status; grep '^CapBnd:' /proc/self/status
grep '^NoNewPrivs:' /proc/self/status; grep '^Seccomp:' /proc/self/status
unshare -U true 2>/dev/null && echo UNSHARE-ALLOWED || echo UNSHARE-DENIED
unshare -m true 2>/dev/null && echo UNSHARE-MNT-ALLOWED || echo UNSHARE-MNT-DENIED
mkdir -p m; mount -t tmpfs none m 2>/dev/null && echo MOUNT-ALLOWED || echo MOUNT-DENIED
mount -o remount,rw,bind {REPOSITORY} 2>/dev/null && echo REMOUNT-ALLOWED || echo REMOUNT-DENIED
python3 -c '
import ctypes, subprocess
libc = ctypes.CDLL(None, use_errno=True)
child = subprocess.Popen(["sleep", "30"])
result = libc.ptrace(16, child.pid, 0, 0)
print("PTRACE-ALLOWED" if result == 0 else "PTRACE-DENIED errno %d" % ctypes.get_errno())
child.kill()
'
for p in /root /home /run /var /var/run /sys /sys/fs/cgroup /etc/shadow /etc/gshadow /etc/sudoers /etc/ssh /etc/ssl/private; do
  if [ -e "$p" ]; then echo "VISIBLE $p"; else echo "ABSENT $p"; fi
done
echo $$ > /sys/fs/cgroup/cgroup.procs 2>/dev/null && echo CGROUP-MOVED || echo CGROUP-STAYED
python3 -c '
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("{socket}")
    print("SOCKET-REACHED")
except OSError as e:
    print("SOCKET-UNREACHABLE", e.errno)
'
echo spoiled > {REPOSITORY}/canary 2>/dev/null && echo REPOSITORY-WRITTEN || echo REPOSITORY-READ-ONLY
cat {REPOSITORY}/canary >/dev/null 2>&1 && echo REPOSITORY-READABLE || echo REPOSITORY-UNREADABLE
echo spoiled > {pristine}/canary 2>/dev/null && echo PRISTINE-WRITTEN || echo PRISTINE-UNWRITTEN
echo ok > inside.txt && echo WORKSPACE-WRITABLE
sleep 30 & protected=$!
tail -f /dev/null & plain=$!
python3 - $protected $plain <<'PY'
import sys
for label, pid in (("PROTECTED", sys.argv[1]), ("PLAIN", sys.argv[2])):
    try:
        open("/proc/%s/mem" % pid, "r+b").close()
        print(label + "-MEM-OPEN")
    except OSError as e:
        print(label + "-MEM-DENIED", e.errno)
PY
kill $protected $plain
"#,
        socket = socket.display(),
        pristine = pristine.display(),
    )
}

/// Runs the probe as the current user, and checks every answer and the host's canaries.
#[expect(
    clippy::print_stdout,
    reason = "the probe's answers and the enforcement line are shown with --nocapture"
)]
fn probe_as_current_user() {
    let workspace = tempfile::tempdir().unwrap();
    let repository = tempfile::tempdir().unwrap();
    let pristine = tempfile::tempdir().unwrap();
    let sockets = tempfile::tempdir().unwrap();
    std::fs::write(repository.path().join("canary"), "original").unwrap();
    std::fs::write(pristine.path().join("canary"), "original").unwrap();
    let socket = sockets.path().join("host.sock");
    let listener = UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();

    let spec = RunSpec {
        program: "/bin/bash".into(),
        args: vec!["-c".into(), probe_script(&socket, pristine.path())],
        cwd: workspace.path().to_owned(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        sandbox: SandboxKind::Bubblewrap,
        policy: SandboxPolicy {
            mounts: vec![
                Mount::ReadOnlyAt {
                    source: repository.path().to_owned(),
                    target: REPOSITORY.into(),
                },
                Mount::ReadWrite(workspace.path().to_owned()),
                // As Maven's `java` launcher is: a process started from it is not dumpable.
                Mount::ExecuteOnly("/usr/bin/sleep".into()),
            ],
            network: false,
        },
        limits: Limits {
            wall: Duration::from_secs(60),
            ..Limits::default()
        },
        stdin: Vec::new(),
    };
    let result = run(&spec).expect("the sandbox runs");
    let out = result.stdout.text();
    let uid = unsafe { libc::getuid() };
    println!("uid {uid}\n{out}\nenforcement: {}", result.enforcement);
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    let has = |line: &str| lines.iter().any(|l| l.starts_with(line));
    for expected in [
        "CapEff:\t0000000000000000",
        "CapBnd:\t0000000000000000",
        "NoNewPrivs:\t1",
        "Seccomp:\t2",
        "UNSHARE-DENIED",
        "UNSHARE-MNT-DENIED",
        "MOUNT-DENIED",
        "REMOUNT-DENIED",
        "PTRACE-DENIED errno 1",
        "CGROUP-STAYED",
        "SOCKET-UNREACHABLE",
        "REPOSITORY-READ-ONLY",
        "REPOSITORY-READABLE",
        "PRISTINE-UNWRITTEN",
        "WORKSPACE-WRITABLE",
        "PROTECTED-MEM-DENIED 13",
        // The control: a process started from a readable program is open to its peers.
        "PLAIN-MEM-OPEN",
    ] {
        assert!(has(expected), "uid {uid}: expected {expected:?} in\n{out}");
    }
    for hidden in [
        "/root",
        "/home",
        "/run",
        "/var",
        "/var/run",
        "/sys",
        "/sys/fs/cgroup",
        "/etc/shadow",
        "/etc/gshadow",
        "/etc/sudoers",
        "/etc/ssh",
        "/etc/ssl/private",
    ] {
        assert!(
            has(&format!("ABSENT {hidden}")),
            "uid {uid}: {hidden} is visible in the sandbox\n{out}"
        );
    }
    assert!(
        listener.accept().is_err(),
        "uid {uid}: a connection reached the host socket"
    );
    let canary = |dir: &Path| std::fs::read_to_string(dir.join("canary")).unwrap();
    assert_eq!(canary(repository.path()), "original");
    assert_eq!(canary(pristine.path()), "original");
    assert!(workspace.path().join("inside.txt").is_file());
    // The log states what was enforced, and says so only because the probe sandbox showed it.
    for claim in [
        "capabilities: all dropped",
        "seccomp: refuses",
        "network: none",
        "checked in a probe sandbox: CapEff 0000000000000000",
    ] {
        assert!(
            result.enforcement.contains(claim),
            "{claim:?} missing from {}",
            result.enforcement
        );
    }
}

#[test]
fn the_sandbox_contains_the_current_user() {
    probe_as_current_user();
}

/// The same probe as user `nobody` (65534): the test binary runs itself again through
/// `setpriv`, filtered to the test above. Run by root, as CI runs it; anyone else cannot switch
/// users, and the test says so rather than passing.
#[test]
#[expect(
    clippy::print_stdout,
    reason = "the unprivileged probe's answers are shown with --nocapture"
)]
fn the_sandbox_contains_an_unprivileged_user() {
    let uid = unsafe { libc::getuid() };
    assert_eq!(
        uid, 0,
        "this test switches to user nobody with setpriv, which needs root; run the suite as root (as CI does)"
    );
    let me = std::env::current_exe().unwrap();
    #[expect(
        clippy::disallowed_methods,
        reason = "the test switches users around its own binary; avrlab code never spawns here"
    )]
    let mut command = std::process::Command::new("setpriv");
    let output = command
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&me)
        .args([
            "containment::the_sandbox_contains_the_current_user",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .current_dir("/")
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("TMPDIR", "/tmp")
        .output()
        .expect("setpriv (util-linux) must be installed to switch to user nobody");
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    output.stderr.as_slice().read_to_string(&mut text).unwrap();
    println!("{text}");
    assert!(
        output.status.success(),
        "the probe failed as user nobody:\n{text}"
    );
    assert!(
        text.contains("uid 65534"),
        "the probe did not run as nobody:\n{text}"
    );
    assert!(
        text.contains("1 passed"),
        "the probe test did not run:\n{text}"
    );
}
