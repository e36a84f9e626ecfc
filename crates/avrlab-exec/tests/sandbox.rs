//! The sandbox contains what it runs: no network, no writes outside the workspace, and no process
//! left behind after a timeout.

use std::path::Path;
use std::time::Duration;

use avrlab_exec::{
    ExitKind, Limits, Mount, RunSpec, SandboxKind, SandboxPolicy, check_sandbox, run,
};

fn shell(script: &str, cwd: &Path, sandbox: SandboxKind, wall: Duration) -> RunSpec {
    RunSpec {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        cwd: cwd.to_owned(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        sandbox,
        policy: SandboxPolicy {
            mounts: vec![Mount::ReadWrite(cwd.to_owned())],
            network: false,
        },
        limits: Limits {
            wall,
            ..Limits::default()
        },
        stdin: Vec::new(),
    }
}

fn process_with_marker_exists(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .map(|c| String::from_utf8_lossy(&c).contains(marker))
            .unwrap_or(false)
    })
}

#[test]
fn a_timed_out_tree_is_killed_whole() {
    for sandbox in [SandboxKind::Bubblewrap, SandboxKind::None] {
        let dir = tempfile::tempdir().unwrap();
        let marker = format!("avrlab-loop-marker-{}", std::process::id());
        // A child that forks more looping children, each with the marker in its command line.
        let script = format!(
            "for i in 1 2 3; do sh -c 'while :; do :; done; echo {marker}' & done; sleep 1000 # {marker}"
        );
        let result = run(&shell(
            &script,
            dir.path(),
            sandbox,
            Duration::from_millis(800),
        ))
        .unwrap();
        // The kill is seen in what is left, not in a clock: the loops and the `sleep 1000` are
        // gone once `run` has returned.
        assert_eq!(result.exit, ExitKind::TimedOut, "{sandbox:?}");
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            !process_with_marker_exists(&marker),
            "{sandbox:?} left a process behind"
        );
        assert!(result.tree_gone);
    }
}

#[test]
fn the_sandbox_blocks_network_and_writes_outside_the_workspace() {
    check_sandbox(SandboxKind::Bubblewrap).expect("bubblewrap must be installed for the tests");
    let dir = tempfile::tempdir().unwrap();
    let outside = std::env::temp_dir().join(format!("avrlab-outside-{}", std::process::id()));
    let home_file = format!("/var/tmp/avrlab-escape-test-{}", std::process::id());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let script = format!(
        "echo inside > ok.txt; echo x > {home_file} || echo WRITE-DENIED; \
         (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo NET-OPEN || echo NET-DENIED; \
         echo x > {} || echo TMP-PRIVATE",
        outside.display()
    );
    let spec = RunSpec {
        program: "/bin/bash".into(),
        args: vec!["-c".into(), script],
        ..shell(
            "",
            dir.path(),
            SandboxKind::Bubblewrap,
            Duration::from_secs(20),
        )
    };
    let result = run(&spec).unwrap();
    let out = result.stdout.text();
    assert!(result.exit.success(), "{out} {}", result.stderr.text());
    assert!(out.contains("WRITE-DENIED"), "{out}");
    assert!(out.contains("NET-DENIED"), "{out}");
    assert!(
        dir.path().join("ok.txt").is_file(),
        "the workspace is writable"
    );
    assert!(
        !Path::new(&home_file).exists(),
        "a write escaped the sandbox"
    );
    assert!(
        !outside.exists(),
        "/tmp inside the sandbox is the host's /tmp"
    );
    assert!(listener.accept().is_err(), "a connection reached the host");
    assert!(result.enforcement.contains("bubblewrap"));
}

#[test]
fn output_past_the_cap_kills_the_command_and_keeps_head_and_tail() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = shell(
        "yes avrlab-output",
        dir.path(),
        SandboxKind::None,
        Duration::from_secs(20),
    );
    spec.limits.output_bytes = 4 << 20;
    let result = run(&spec).unwrap();
    assert_eq!(result.exit, ExitKind::OutputLimit);
    let text = result.stdout.text();
    assert!(text.starts_with("avrlab-output\n"));
    assert!(text.contains("bytes omitted"));
    assert!(text.len() < 200 << 10);
}

#[test]
fn standard_input_reaches_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = shell(
        "tr a-z A-Z",
        dir.path(),
        SandboxKind::Bubblewrap,
        Duration::from_secs(20),
    );
    spec.stdin = b"prompt text\n".to_vec();
    let result = run(&spec).unwrap();
    assert!(result.exit.success());
    assert_eq!(result.stdout.text(), "PROMPT TEXT\n");
}

#[test]
fn exit_codes_and_both_streams_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&shell(
        "echo out; echo err >&2; exit 3",
        dir.path(),
        SandboxKind::Bubblewrap,
        Duration::from_secs(20),
    ))
    .unwrap();
    assert_eq!(result.exit, ExitKind::Code(3));
    assert_eq!(result.stdout.text(), "out\n");
    assert_eq!(result.stderr.text(), "err\n");
}

#[test]
fn a_command_that_fills_the_disk_is_killed_at_its_disk_limit() {
    let dir = tempfile::tempdir().unwrap();
    // Empty files without end: only the file count grows.
    let mut spec = shell(
        "i=0; while :; do : > f$i; i=$((i+1)); done",
        dir.path(),
        SandboxKind::Bubblewrap,
        Duration::from_secs(60),
    );
    spec.limits.disk_files = 5_000;
    let result = run(&spec).unwrap();
    assert!(
        result.enforcement.contains("files counted"),
        "this test needs a file system that counts inodes: {}",
        result.enforcement
    );
    assert_eq!(result.exit, ExitKind::DiskLimit, "{}", result.stderr.text());
    assert!(result.tree_gone);
}

/// A tree that only waits (here `sleep`, for a test blocked on a socket) is killed once its idle
/// limit has passed with no CPU time and no output, and says so, long before its wall clock.
#[test]
fn a_tree_that_only_waits_is_killed_as_idle() {
    for sandbox in [SandboxKind::Bubblewrap, SandboxKind::None] {
        let dir = tempfile::tempdir().unwrap();
        let marker = format!("avrlab-idle-marker-{}", std::process::id());
        let script = format!("echo started; sleep 1000 # {marker}");
        let mut spec = shell(&script, dir.path(), sandbox, Duration::from_secs(600));
        spec.limits.idle = Some(Duration::from_secs(1));
        let result = run(&spec).unwrap();
        assert_eq!(result.exit, ExitKind::Idle { seconds: 1 }, "{sandbox:?}");
        assert_eq!(result.stdout.text(), "started\n");
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            !process_with_marker_exists(&marker),
            "{sandbox:?} left a process behind"
        );
    }
}

/// Output is activity: a command that keeps printing is not idle, however little CPU it uses.
#[test]
fn a_tree_that_keeps_printing_is_not_idle() {
    let dir = tempfile::tempdir().unwrap();
    let script = "for i in 1 2 3 4 5 6 7; do echo $i; sleep 0.2; done";
    let mut spec = shell(
        script,
        dir.path(),
        SandboxKind::None,
        Duration::from_secs(600),
    );
    spec.limits.idle = Some(Duration::from_secs(1));
    let result = run(&spec).unwrap();
    assert_eq!(result.exit, ExitKind::Code(0));
}

/// A command's processes share the CPU as one: its cgroup has the `cpu` controller, so a fork
/// bomb in one worker's command gets no more of the processors than another worker's test JVM.
#[test]
fn a_command_gets_a_cpu_share_of_its_own_where_cgroups_can_be_made() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(&shell(
        "cat /proc/self/cgroup",
        dir.path(),
        SandboxKind::None,
        Duration::from_secs(20),
    ))
    .unwrap();
    let out = result.stdout.text();
    assert!(result.exit.success(), "{out}");
    let root = unsafe { libc::geteuid() } == 0;
    let cpu_controller = Path::new("/sys/fs/cgroup/cpu").is_dir()
        || std::fs::read_to_string("/sys/fs/cgroup/cgroup.controllers")
            .is_ok_and(|c| c.split_whitespace().any(|c| c == "cpu"));
    if !(root && cpu_controller) {
        // Without cgroups (an unprivileged user) the log says what is not enforced.
        assert!(
            !result.enforcement.contains("a CPU share of its own")
                || out.lines().any(|l| l.contains("avrlab-")),
            "{}\n{out}",
            result.enforcement
        );
        return;
    }
    assert!(
        result.enforcement.contains("a CPU share of its own"),
        "{}",
        result.enforcement
    );
    // v1: a `cpu` (or `cpu,cpuacct`) line naming avrlab's cgroup; v2: one line, whose cgroup has
    // its own cpu.weight.
    let cpu_line = out
        .lines()
        .find(|l| {
            l.split(':')
                .nth(1)
                .is_some_and(|c| c.split(',').any(|c| c == "cpu"))
        })
        .or_else(|| out.lines().find(|l| l.starts_with("0::")))
        .unwrap_or_else(|| panic!("no cpu line in {out}"));
    assert!(cpu_line.contains("avrlab-"), "{cpu_line}\n{out}");
}
