//! The command model: stdin/stdout and workdir/diff modes, run through a plain std::process runner
//! (the CLI's runner goes through avrlab-exec and its sandbox).

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use avrlab_model::{
    CommandExit, CommandMode, CommandModel, CommandModelConfig, CommandOutput, CommandRunner,
    CommandSpec, FinishReason, GenParams, Generation, Model, ModelError, Request,
};
use avrlab_prompt::{ChatMessage, Prompt, Role};

/// Runs programs with std::process in their own process group, killed as a group on timeout or
/// past the output limit. Workspaces get a bare `.git/HEAD` instead of a real repository (the
/// CLI's runner, tested in the `avrlab` crate, makes the real one-commit repository); the runner
/// records them so that tests can check each one is removed.
#[derive(Debug, Default)]
struct PlainRunner {
    workspaces: std::sync::Mutex<Vec<std::path::PathBuf>>,
}

impl CommandRunner for PlainRunner {
    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, String> {
        #[expect(
            clippy::disallowed_methods,
            reason = "a test stand-in for the avrlab-exec runner that the CLI passes"
        )]
        let mut command = std::process::Command::new(spec.program);
        command
            .args(spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(cwd) = spec.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(|e| e.to_string())?;
        let mut stdin = child.stdin.take().unwrap();
        let input = spec.stdin.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let limit = spec.output_limit;
        let mut stdout = child.stdout.take().unwrap();
        let over = Arc::new(AtomicBool::new(false));
        let reader_over = Arc::clone(&over);
        let reader = std::thread::spawn(move || {
            let mut kept = Vec::new();
            let _ = (&mut stdout).take(limit + 1).read_to_end(&mut kept);
            if kept.len() as u64 > limit {
                kept.truncate(limit as usize);
                reader_over.store(true, Ordering::SeqCst);
            }
            kept
        });
        let mut stderr = child.stderr.take().unwrap();
        let err_reader = std::thread::spawn(move || {
            let mut kept = Vec::new();
            let _ = stderr.read_to_end(&mut kept);
            kept
        });
        let started = Instant::now();
        let kill_group = |pid: u32| {
            #[expect(clippy::disallowed_methods, reason = "the test runner kills its group")]
            let _ = std::process::Command::new("kill")
                .args(["-s", "KILL", "--", &format!("-{pid}")])
                .status();
        };
        let mut exit = loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                use std::os::unix::process::ExitStatusExt;
                break match (status.code(), status.signal()) {
                    (Some(code), _) => CommandExit::Code(code),
                    (None, Some(signal)) => CommandExit::Signal(signal),
                    (None, None) => CommandExit::Signal(0),
                };
            }
            if over.load(Ordering::SeqCst) {
                kill_group(child.id());
                let _ = child.wait();
                break CommandExit::OutputLimit;
            }
            if started.elapsed() > spec.timeout {
                kill_group(child.id());
                let _ = child.wait();
                break CommandExit::TimedOut;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let stdout = reader.join().unwrap();
        if over.load(Ordering::SeqCst) && exit != CommandExit::TimedOut {
            // It printed past the limit and ended before the loop saw it.
            exit = CommandExit::OutputLimit;
        }
        let _ = writer.join();
        Ok(CommandOutput {
            exit,
            stdout,
            stderr: err_reader.join().unwrap(),
        })
    }

    fn init_repository(&self, dir: &Path) -> Result<(), String> {
        self.workspaces.lock().unwrap().push(dir.to_owned());
        write(dir, ".git/HEAD", "ref: refs/heads/task\n");
        Ok(())
    }

    fn remove_workspace(&self, dir: &Path) -> Result<(), String> {
        std::fs::remove_dir_all(dir).map_err(|e| e.to_string())
    }
}

fn sh(script: &str) -> CommandModelConfig {
    CommandModelConfig::new("sh", vec!["-c".into(), script.into()])
}

fn params(n: u32) -> GenParams {
    GenParams {
        n,
        ..GenParams::default()
    }
}

fn chat(text: &str) -> Prompt {
    Prompt::Chat {
        messages: vec![
            ChatMessage {
                role: Role::System,
                content: "Fix it.".into(),
            },
            ChatMessage {
                role: Role::User,
                content: text.into(),
            },
        ],
    }
}

fn generate(
    config: CommandModelConfig,
    prompt: &Prompt,
    n: u32,
    workspace: Option<&Path>,
) -> Result<Vec<Generation>, ModelError> {
    let runner = Arc::new(PlainRunner::default());
    let result = CommandModel::new(config, runner.clone()).generate(&Request {
        first_sample: 0,
        prompt_id: "task-1",
        prompt,
        params: &params(n),
        method: None,
        workspace,
    });
    for dir in runner.workspaces.lock().unwrap().iter() {
        assert!(!dir.exists(), "workspace {} was left", dir.display());
    }
    result
}

#[test]
fn stdout_is_the_generation_in_stdin_mode() {
    let prompt = chat("int x = 1;");
    let generations = generate(sh("cat; echo extra"), &prompt, 2, None).unwrap();
    assert_eq!(generations.len(), 2);
    for generation in &generations {
        assert_eq!(generation.text, "Fix it.\n\nint x = 1;extra\n");
        assert_eq!(generation.finish_reason, FinishReason::Stop);
    }

    let environment = generate(
        sh(r#"cat "$AVRLAB_PROMPT_FILE"; echo " $AVRLAB_PROMPT_ID $AVRLAB_SAMPLE""#),
        &prompt,
        2,
        None,
    )
    .unwrap();
    let texts: Vec<_> = environment.into_iter().map(|g| g.text).collect();
    assert_eq!(
        texts,
        [
            "Fix it.\n\nint x = 1; task-1 0\n",
            "Fix it.\n\nint x = 1; task-1 1\n"
        ]
    );
}

#[test]
fn failures_are_typed_errors() {
    let prompt = chat("x");
    let failed = generate(
        sh("cat >/dev/null; echo oops >&2; exit 3"),
        &prompt,
        1,
        None,
    );
    match failed {
        Err(ModelError::CommandFailed { status, stderr, .. }) => {
            assert_eq!(status, "code 3");
            assert_eq!(stderr, "oops");
        }
        other => panic!("{other:?}"),
    }

    let mut slow = sh("sleep 30");
    slow.timeout = Duration::from_millis(300);
    // Only the time-out ends `sleep 30` early enough to be reported as one.
    assert!(matches!(
        generate(slow, &prompt, 1, None),
        Err(ModelError::CommandTimeout { .. })
    ));

    let missing = CommandModelConfig::new("/nonexistent/agent", Vec::new());
    assert!(matches!(
        generate(missing, &prompt, 1, None),
        Err(ModelError::CommandUnavailable { .. })
    ));

    let mut chatty = sh("cat >/dev/null; head -c 100000 /dev/zero | tr '\\0' x");
    chatty.output_limit = 1000;
    let cut = generate(chatty, &prompt, 1, None).unwrap();
    assert_eq!(cut[0].finish_reason, FinishReason::Length);
    assert_eq!(cut[0].text.len(), 1000);
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read_tree(root: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(root).unwrap().display().to_string();
                files.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn workdir_mode_answers_with_the_diff_of_a_fresh_copy_and_leaves_the_state_untouched() {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    write(
        root,
        "src/main/java/Store.java",
        "class Store {\n    File open(String name) {\n        return new File(root, name);\n    }\n}\n",
    );
    write(root, "README", "readme\n");
    write(root, ".git/HEAD", "ref: refs/heads/main\n");
    let before = read_tree(root);

    let agent = sh("cat > prompt-seen.txt; \
         sed -i 's/return new File(root, name);/return safe(root, name);/' src/main/java/Store.java; \
         mkdir -p src/main/java/util && printf 'class Safe {}\\n' > src/main/java/util/Safe.java; \
         rm README; echo noise > .git/index; echo log only");
    let mut config = agent;
    config.mode = CommandMode::workdir();
    let generations = generate(config, &chat("fix Store"), 2, Some(root)).unwrap();
    assert_eq!(generations.len(), 2);
    let diff = &generations[0].text;
    assert_eq!(diff, &generations[1].text, "each sample starts afresh");
    assert_eq!(
        diff,
        "\
diff --git a/README b/README
deleted file mode 100644
--- a/README
+++ /dev/null
@@ -1 +0,0 @@
-readme
diff --git a/prompt-seen.txt b/prompt-seen.txt
new file mode 100644
--- /dev/null
+++ b/prompt-seen.txt
@@ -0,0 +1,3 @@
+Fix it.
+
+fix Store
\\ No newline at end of file
diff --git a/src/main/java/Store.java b/src/main/java/Store.java
--- a/src/main/java/Store.java
+++ b/src/main/java/Store.java
@@ -1,5 +1,5 @@
 class Store {
     File open(String name) {
-        return new File(root, name);
+        return safe(root, name);
     }
 }
diff --git a/src/main/java/util/Safe.java b/src/main/java/util/Safe.java
new file mode 100644
--- /dev/null
+++ b/src/main/java/util/Safe.java
@@ -0,0 +1 @@
+class Safe {}
"
    );
    assert_eq!(generations[0].finish_reason, FinishReason::Stop);

    // The state was only read; each sample had its own copy, removed afterwards.
    assert_eq!(read_tree(root), before);
    assert!(!root.join("src/main/java/util").exists());

    // The diff applies to a copy of the original and gives what the agent left.
    let copy = tempfile::tempdir().unwrap();
    write(
        copy.path(),
        "src/main/java/Store.java",
        "class Store {\n    File open(String name) {\n        return new File(root, name);\n    }\n}\n",
    );
    write(copy.path(), "README", "readme\n");
    let patch = avrlab_bench::Patch::parse(diff).unwrap();
    assert_eq!(patch.files.len(), 4);
    let java_only = avrlab_bench::Patch {
        files: patch
            .files
            .into_iter()
            .filter(|f| f.new_path.ends_with(".java"))
            .collect(),
    };
    java_only.apply_to_dir(copy.path()).unwrap();
    assert!(
        std::fs::read_to_string(copy.path().join("src/main/java/Store.java"))
            .unwrap()
            .contains("return safe(root, name);")
    );
    assert_eq!(
        std::fs::read_to_string(copy.path().join("src/main/java/util/Safe.java")).unwrap(),
        "class Safe {}\n"
    );
}

#[test]
fn workdir_mode_without_a_workspace_is_an_error_and_failures_still_restore() {
    let mut config = sh("cat >/dev/null");
    config.mode = CommandMode::workdir();
    assert!(matches!(
        generate(config, &chat("x"), 1, None),
        Err(ModelError::WorkspaceRequired(_))
    ));

    let workspace = tempfile::tempdir().unwrap();
    write(workspace.path(), "A.java", "class A {}\n");
    let mut failing = sh("cat >/dev/null; echo broken > A.java; exit 1");
    failing.mode = CommandMode::workdir();
    assert!(matches!(
        generate(failing, &chat("x"), 1, Some(workspace.path())),
        Err(ModelError::CommandFailed { .. })
    ));
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("A.java")).unwrap(),
        "class A {}\n"
    );
}
