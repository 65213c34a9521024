//! Running one shell command (a RUN line) with a timeout, capturing its output.
//!
//! The command runs in a process group of its own, so that on timeout the
//! whole pipeline (and anything it left in the background) is killed.

use std::ffi::OsString;
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It exited with this code.
    Exited(i32),
    /// It was killed by this signal.
    Signaled(i32),
    /// It ran past the timeout and was killed.
    TimedOut(Duration),
}

impl Outcome {
    /// Whether the command succeeded (exited with code 0).
    pub fn success(&self) -> bool {
        *self == Outcome::Exited(0)
    }

    /// A short description, e.g. `exit code 1 ...`.
    pub fn describe(&self) -> String {
        match self {
            Outcome::Exited(c) if *c > 128 && *c < 128 + 65 => format!(
                "exit code {c} (a command was killed by signal {}{})",
                c - 128,
                if *c == 134 { ", SIGABRT: a tool crashed, e.g. panicked" } else { "" }
            ),
            Outcome::Exited(c) => format!("exit code {c}"),
            Outcome::Signaled(s) => format!("killed by signal {s}"),
            Outcome::TimedOut(d) => {
                format!("timed out after {} s (set MORF_LIT_TIMEOUT to change the limit)", d.as_secs())
            }
        }
    }
}

/// The result of running a command.
#[derive(Debug, Clone)]
pub struct Output {
    /// How it ended.
    pub outcome: Outcome,
    /// What it wrote to stdout (lossily decoded).
    pub stdout: String,
    /// What it wrote to stderr (lossily decoded).
    pub stderr: String,
}

fn reader<R: Read + Send + 'static>(mut r: R) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

fn kill_group(pgid: u32) {
    // SAFETY: killpg only sends a signal; a stale or empty group just fails.
    unsafe {
        libc::killpg(pgid as libc::pid_t, libc::SIGKILL);
    }
}

/// Runs `bash -o pipefail -c <command>` in `dir` with `PATH` set to `path`,
/// no stdin, and the given timeout.
pub fn run_shell(command: &str, dir: &Path, path: &OsString, timeout: Duration) -> std::io::Result<Output> {
    let mut child = Command::new("bash")
        .arg("-o")
        .arg("pipefail")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let pid = child.id();
    let out = reader(child.stdout.take().expect("piped stdout"));
    let err = reader(child.stderr.take().expect("piped stderr"));
    let (tx, rx) = mpsc::channel();
    let waiter = thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let start = Instant::now();
    let status = match rx.recv_timeout(timeout) {
        Ok(status) => Some(status?),
        Err(_) => None,
    };
    // Whether or not it finished, kill what is left of the group, so that a
    // background process holding the pipes cannot hang the readers.
    kill_group(pid);
    let _ = waiter.join();
    let outcome = match status {
        None => Outcome::TimedOut(start.elapsed()),
        Some(s) => match (s.code(), s.signal()) {
            (Some(c), _) => Outcome::Exited(c),
            (None, Some(sig)) => Outcome::Signaled(sig),
            (None, None) => Outcome::Exited(-1),
        },
    };
    let stdout = String::from_utf8_lossy(&out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    Ok(Output { outcome, stdout, stderr })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> OsString {
        std::env::var_os("PATH").unwrap_or_default()
    }

    #[test]
    fn captures_output_and_status() {
        let o = run_shell("echo out; echo err >&2; exit 3", Path::new("/"), &path(), Duration::from_secs(30)).unwrap();
        assert_eq!(o.outcome, Outcome::Exited(3));
        assert_eq!(o.stdout, "out\n");
        assert_eq!(o.stderr, "err\n");
    }

    #[test]
    fn pipefail_is_on() {
        let o = run_shell("false | cat", Path::new("/"), &path(), Duration::from_secs(30)).unwrap();
        assert_eq!(o.outcome, Outcome::Exited(1));
    }

    #[test]
    fn timeout_kills_the_pipeline() {
        let t = Instant::now();
        let o = run_shell("sleep 30 | cat", Path::new("/"), &path(), Duration::from_millis(300)).unwrap();
        assert!(matches!(o.outcome, Outcome::TimedOut(_)), "{o:?}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }
}
