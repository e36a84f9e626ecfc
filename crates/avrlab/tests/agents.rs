//! Agents (command models) run in the candidates' sandbox. Real shell scripts act as agents: one
//! edits the task honestly, one searches the workspace's git history for the fix, one reads what it
//! was not given (the host's files, avrlab's environment, the network), one writes outside its
//! workspace. The same checks run as the current user (root in CI) and, through `setpriv`, as
//! `nobody`. No Maven runs here: the agents' answers are checked as diffs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use avrlab_exec::SandboxKind;
use avrlab_model::{CommandMode, CommandModel, CommandModelConfig, GenParams, Model, Request};
use avrlab_prompt::Prompt;
use avrlab_run::command_runner::{AgentSandbox, ExecRunner};

use crate::common::repo_root;

const TASK: &str = "demo-xxe-config";

/// A variable of the test process that no agent is given; the unprivileged run sets it.
const UNGIVEN: &str = "AVRLAB_TEST_PROVIDER_KEY";

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs `script` with `sh -c` as a command model and returns its one answer.
fn answer(
    sandbox: &AgentSandbox,
    script: &str,
    workdir: Option<&Path>,
) -> Result<String, avrlab_model::ModelError> {
    let mut config = CommandModelConfig::new("sh", vec!["-c".into(), script.into()]);
    config.timeout = Duration::from_secs(60);
    if workdir.is_some() {
        config.mode = CommandMode::workdir();
    }
    let model = CommandModel::new(config, Arc::new(ExecRunner::new(sandbox.clone())));
    let prompt = Prompt::Completion {
        prompt: "Fix the XML parser.".into(),
        suffix: None,
    };
    let generations = model.generate(&Request {
        first_sample: 0,
        prompt_id: "agents/0",
        prompt: &prompt,
        params: &GenParams {
            n: 1,
            ..GenParams::default()
        },
        method: None,
        workspace: workdir,
    })?;
    Ok(generations.into_iter().next().unwrap().text)
}

/// Every check, as whoever runs this process.
fn agents_are_confined() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let state = base.join("state");
    copy_tree(
        &repo_root()
            .join("benchmarks/demo")
            .join(TASK)
            .join("project"),
        &state,
    );
    let tag = format!("{}-{}", std::process::id(), real_uid());
    let secret = format!("HOST-SECRET-{tag}");
    let secret_file = base.join("secret.txt");
    std::fs::write(&secret_file, &secret).unwrap();
    let sandbox = AgentSandbox {
        kind: SandboxKind::Bubblewrap,
        network: false,
        env: vec![("GIVEN_KEY".into(), "given-value".into())],
        read_only: Vec::new(),
    };

    // 1. The honest agent: its edit is the answer, and nothing else is.
    let honest = answer(
        &sandbox,
        "sed -i 's/factory.setNamespaceAware(true);/factory.setNamespaceAware(true);\\n            factory.setExpandEntityReferences(false);/' src/main/java/com/example/config/ConfigParser.java",
        Some(&state),
    )
    .unwrap();
    assert!(
        honest.starts_with("diff --git a/src/main/java/com/example/config/ConfigParser.java"),
        "{honest}"
    );
    assert!(
        honest.contains("+            factory.setExpandEntityReferences(false);"),
        "{honest}"
    );
    assert_eq!(honest.matches("diff --git").count(), 1, "{honest}");
    // The task state itself was only read.
    assert!(
        !std::fs::read_to_string(state.join("src/main/java/com/example/config/ConfigParser.java"))
            .unwrap()
            .contains("setExpandEntityReferences")
    );

    // 2. The history thief: the workspace is a repository of one commit and nothing else.
    let history = answer(
        &sandbox,
        r#"{
          echo "commits $(git rev-list --all --count)"
          echo "refs $(git for-each-ref --format='%(refname)' | tr '\n' ' ')"
          echo "objects $(git cat-file --batch-all-objects --batch-check | wc -l)"
          echo "reachable $(git rev-list --objects --all | wc -l)"
          echo "unreachable $(git fsck --unreachable --lost-found 2>&1 | grep -c -e unreachable -e dangling)"
          echo "packs $(ls .git/objects/pack | wc -l)"
          echo "alternates $(cat .git/objects/info/alternates 2>/dev/null | wc -l)"
          echo "reflog $(git reflog --all | wc -l)"
          echo "stashes $(git stash list | wc -l)"
          echo "fix $(git log --all -p | grep -c disallow-doctype-decl)"
          echo "status $(git status --porcelain | wc -l)"
        } > found.txt"#,
        Some(&state),
    )
    .unwrap();
    let found: Vec<&str> = history
        .lines()
        .filter_map(|l| l.strip_prefix('+'))
        .filter(|l| !l.starts_with("++"))
        .collect();
    assert_eq!(
        found,
        [
            "commits 1",
            "refs refs/heads/task ",
            // The commit, its trees and its blobs: every object there is, and each reachable.
            &format!("objects {}", reachable(&found)),
            &format!("reachable {}", reachable(&found)),
            "unreachable 0",
            "packs 0",
            "alternates 0",
            "reflog 0",
            "stashes 0",
            "fix 0",
            // The commit holds the whole state: nothing untracked but the agent's own file.
            "status 1",
        ],
        "{history}"
    );
    assert!(reachable(&found) > 10, "{history}");

    // 3. The snoop: no host file, no variable it was not given, no network.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let snoop_script = format!(
        r#"echo "env: $(env | cut -d= -f1 | sort | tr '\n' ' ')"
        echo "given: $GIVEN_KEY"
        echo "env text: $(env | grep -c -e HOST-SECRET -e '{ungiven}')"
        echo "secret: $(cat '{secret}' 2>/dev/null || echo unreadable)"
        echo "shadow: $(cat /etc/shadow 2>/dev/null | wc -l)"
        echo "root: $(ls -A /root 2>/dev/null | wc -l)"
        echo "home: $(ls -A /home 2>/dev/null | wc -l)"
        echo "run: $(ls -A /run 2>/dev/null | wc -l)"
        echo "var: $(ls -A /var 2>/dev/null | wc -l)"
        echo "tmp: $(ls -A /tmp | grep -cvxF "$(basename "$AVRLAB_PROMPT_FILE")")"
        echo "processes: $(awk '/^Max processes/ {{print $3}}' /proc/self/limits)"
        echo "net: $(bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null && echo connected || echo refused)""#,
        ungiven = UNGIVEN,
        secret = secret_file.display(),
    );
    let snoop = answer(&sandbox, &snoop_script, None).unwrap();
    let line = |name: &str| {
        snoop
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(": "))
            .unwrap_or_else(|| panic!("no {name} in {snoop}"))
            .trim()
            .to_owned()
    };
    let names: Vec<String> = line("env").split(' ').map(str::to_owned).collect();
    let allowed = [
        "AVRLAB_PROMPT_FILE",
        "AVRLAB_PROMPT_ID",
        "AVRLAB_SAMPLE",
        "GIVEN_KEY",
        "HOME",
        "LANG",
        "PATH",
        "TMPDIR",
        // Set by the shell itself.
        "OLDPWD",
        "PWD",
        "SHLVL",
        "_",
    ];
    for name in &names {
        assert!(allowed.contains(&name.as_str()), "{name} in {snoop}");
    }
    assert_eq!(line("given"), "given-value", "{snoop}");
    if let Ok(value) = std::env::var(UNGIVEN) {
        assert!(!snoop.contains(&value), "{snoop}");
    }
    assert_eq!(line("env text"), "0", "{snoop}");
    assert_eq!(line("secret"), "unreadable", "{snoop}");
    assert!(!snoop.contains(&secret), "{snoop}");
    for hidden in ["shadow", "root", "home", "run", "var", "tmp"] {
        assert_eq!(line(hidden), "0", "{hidden} in {snoop}");
    }
    assert_eq!(line("net"), "refused", "{snoop}");
    // An unprivileged user without a cgroup of its own still gets a process limit.
    if real_uid() != "0" && !cgroup_writable() {
        assert_eq!(line("processes"), "1024", "{snoop}");
    }
    // The network is there when the model's configuration asks for it.
    let networked = AgentSandbox {
        network: true,
        ..sandbox.clone()
    };
    let online = answer(&networked, &snoop_script, None).unwrap();
    assert!(online.contains("net: connected"), "{online}");
    drop(listener);

    // 4. The escapee: what it writes outside the workspace is gone, links and FIFOs in the
    // workspace are not read, and the rest of its answer is what it left inside.
    let outside = base.join(format!("escaped-{tag}"));
    let host_tmp = PathBuf::from(format!("/tmp/avrlab-agent-escape-{tag}"));
    let escape_script = format!(
        r#"echo a > '{outside}'; echo b > '{host_tmp}'; echo c > "$HOME/.escaped-{tag}"
        echo d > ../escaped-{tag}; echo e > /var/tmp/escaped-{tag}; echo f > /escaped-{tag}
        ln -s '{secret}' leak.txt; ln -s / root-link; mkfifo pipe
        echo inside > inside.txt; true"#,
        outside = outside.display(),
        host_tmp = host_tmp.display(),
        secret = secret_file.display(),
    );
    let escape = answer(&sandbox, &escape_script, Some(&state)).unwrap();
    assert_eq!(
        escape,
        "diff --git a/inside.txt b/inside.txt\nnew file mode 100644\n--- /dev/null\n+++ b/inside.txt\n@@ -0,0 +1 @@\n+inside\n"
    );
    for path in [
        outside,
        host_tmp,
        PathBuf::from(format!("/tmp/escaped-{tag}")),
        PathBuf::from(format!("/var/tmp/escaped-{tag}")),
        PathBuf::from(format!("/escaped-{tag}")),
    ] {
        assert!(!path.exists(), "{} escaped", path.display());
    }
    assert_eq!(std::fs::read_to_string(&secret_file).unwrap(), secret);
}

/// The `reachable N` count of the history agent's findings.
fn reachable(found: &[&str]) -> usize {
    found
        .iter()
        .find_map(|l| l.strip_prefix("reachable "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

/// Whether this process can make a cgroup (and so gets memory and process limits that way).
fn cgroup_writable() -> bool {
    let probe = PathBuf::from(format!(
        "/sys/fs/cgroup/avrlab-probe-{}",
        std::process::id()
    ));
    let made = std::fs::create_dir(&probe).is_ok();
    if made {
        let _ = std::fs::remove_dir(&probe);
    }
    made
}

/// This process's real user id, read from `/proc`.
fn real_uid() -> String {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|v| v.split_whitespace().next())
        .unwrap()
        .to_owned()
}

#[test]
fn agents_as_the_current_user_are_confined() {
    agents_are_confined();
}

#[test]
fn agents_as_an_unprivileged_user_are_confined() {
    if real_uid() != "0" {
        // Already unprivileged: the test above is this one.
        agents_are_confined();
        return;
    }
    // This very test binary, as `nobody`, runs the test above; `nobody` is given a variable it
    // must not pass on to any agent.
    let exe = std::env::current_exe().unwrap();
    #[expect(clippy::disallowed_methods, reason = "the test runs itself as nobody")]
    let output = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(&exe)
        .args([
            "--exact",
            "agents::agents_as_the_current_user_are_confined",
            "--test-threads=1",
        ])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", "/nonexistent")
        .env(UNGIVEN, format!("AVRLAB-UNGIVEN-{}", std::process::id()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "{stdout}");
}

/// A masked file as `avrlab curate` writes it: two stubbed members, braces in literals around.
const MASKED: &str = r#"package p;

/** Adds numbers; see {@link #add}. */
public class Adder {
    private final int base;

    public Adder(int base) {
        super();
        throw new UnsupportedOperationException("not implemented: Adder");
    }

    // The sum.
    @Deprecated
    public int add(int a,
                   int b) {
        throw new UnsupportedOperationException("not implemented: add");
    }

    String name() { return "}"; }
}
"#;

/// Runs `agents/local-model-agent` in workdir mode on a copy of `MASKED`, with `ask` as its
/// answering command and `read_only` mounted; returns the diff it left.
fn local_model_agent(
    ask: &[String],
    read_only: Vec<PathBuf>,
) -> Result<String, avrlab_model::ModelError> {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(state.join("src/main/java/p")).unwrap();
    std::fs::write(state.join("src/main/java/p/Adder.java"), MASKED).unwrap();
    let program = repo_root().join("agents/local-model-agent");
    let mut config = CommandModelConfig::new(program.to_str().unwrap(), ask.to_vec());
    config.timeout = Duration::from_secs(300);
    config.mode = CommandMode::workdir();
    let sandbox = AgentSandbox {
        kind: SandboxKind::Bubblewrap,
        network: false,
        env: Vec::new(),
        read_only,
    };
    let model = CommandModel::new(config, Arc::new(ExecRunner::new(sandbox)));
    let prompt = Prompt::Completion {
        prompt: "STATEMENT-7: implement the adder.".into(),
        suffix: None,
    };
    let generations = model.generate(&Request {
        first_sample: 0,
        prompt_id: "agents/local",
        prompt: &prompt,
        params: &GenParams {
            n: 1,
            ..GenParams::default()
        },
        method: None,
        workspace: Some(&state),
    })?;
    Ok(generations.into_iter().next().unwrap().text)
}

/// The agent script's contract, with a fake answering command: it asks once per masked member
/// with the problem statement, the file and the member's signature; a method the answer writes
/// out replaces the stub (literal and comment braces do not confuse it); a member the answer
/// does not hold, or gives back as its stub, stays masked; a failing answering command fails
/// the sample.
#[test]
fn the_local_model_agent_writes_the_answered_method_into_the_stub() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("fake-model");
    std::fs::write(
        &fake,
        r#"#!/bin/sh
prompt=$(cat)
case "$prompt" in
  *STATEMENT-7*'class Adder'*'method `public int add(int a, int b)`'*)
    printf 'Here:\n```java\n@Deprecated\npublic int add(int a, int b) {\n  String open = "{";\n  return base + a + b; // }\n}\n```\n' ;;
  *STATEMENT-7*'method `public Adder(int base)`'*)
    printf '```java\npublic Adder(int base) {\n  throw new UnsupportedOperationException("not implemented: Adder");\n}\n```\n' ;;
  *) echo "I do not know." ;;
esac
"#,
    )
    .unwrap();
    let failing = dir.path().join("failing-model");
    std::fs::write(&failing, "#!/bin/sh\necho 'no weights' >&2\nexit 3\n").unwrap();
    for script in [&fake, &failing] {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let diff =
        local_model_agent(&[fake.display().to_string()], vec![dir.path().to_owned()]).unwrap();
    assert_eq!(
        diff,
        "diff --git a/src/main/java/p/Adder.java b/src/main/java/p/Adder.java\n\
         --- a/src/main/java/p/Adder.java\n\
         +++ b/src/main/java/p/Adder.java\n\
         @@ -13,7 +13,8 @@\n     @Deprecated\n     public int add(int a,\n                    int b) {\n\
         -        throw new UnsupportedOperationException(\"not implemented: add\");\n\
         +        String open = \"{\";\n\
         +        return base + a + b; // }\n     }\n \n     String name() { return \"}\"; }\n"
    );
    let failed = local_model_agent(
        &[failing.display().to_string()],
        vec![dir.path().to_owned()],
    )
    .unwrap_err()
    .to_string();
    assert!(
        failed.contains("exit 3") && failed.contains("no weights"),
        "{failed}"
    );
}

/// The same agent with the real local model behind `avrlab ask`, both mounted read-only in the
/// sandbox: the model runs there (no network, no home) and whatever it answers, the agent's
/// diff touches the masked file only.
#[test]
fn the_local_model_agent_asks_the_local_model_inside_the_sandbox() {
    let binary = PathBuf::from(crate::common::binary())
        .canonicalize()
        .unwrap();
    let weights = avrlab_model::LocalModel::default_path();
    assert!(
        weights.is_file(),
        "the local model's weights come from scripts/fetch-model: {}",
        weights.display()
    );
    let ask: Vec<String> = [
        binary.to_str().unwrap(),
        "ask",
        "--model",
        "local",
        "--weights",
        weights.to_str().unwrap(),
        "--config",
        "/dev/null",
        "--max-tokens",
        "96",
    ]
    .map(str::to_owned)
    .to_vec();
    let diff = local_model_agent(&ask, vec![binary, weights]).unwrap();
    for line in diff.lines().filter(|l| l.starts_with("diff --git")) {
        assert_eq!(
            line,
            "diff --git a/src/main/java/p/Adder.java b/src/main/java/p/Adder.java"
        );
    }
}
