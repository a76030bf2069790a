//! Child processes. Servers run in their own process group (a Ctrl-C in
//! the terminal reaches the harness and the running client, not the
//! servers, which the guards then stop in order) with their output
//! appended to a log file. Clients (pgbench, psql, initdb, ...) run to
//! completion under a timeout and the interrupt flag.

use super::PgbenchError;
use rustix::process::{Pid, Signal, kill_process};
use std::fs::File;
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often waits look at their child and the interrupt flag.
const POLL: Duration = Duration::from_millis(5);

/// A loopback port nothing listens on now: the kernel's pick for port 0.
pub fn free_port() -> Result<u16, PgbenchError> {
    let listener =
        TcpListener::bind("127.0.0.1:0").map_err(PgbenchError::io("finding a free port"))?;
    let port = listener
        .local_addr()
        .map_err(PgbenchError::io("finding a free port"))?
        .port();
    Ok(port)
}

/// What a client printed, and how it ended.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// The program name of `command`, for messages.
fn program(command: &Command) -> String {
    Path::new(command.get_program())
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Runs `command` to its end and returns its output, whatever its exit
/// status. Killed (and an error) after `timeout`, or as soon as
/// `interrupted` is set.
pub fn run(
    command: &mut Command,
    timeout: Duration,
    interrupted: &AtomicBool,
) -> Result<Finished, PgbenchError> {
    let name = program(command);
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(PgbenchError::io(format!("starting {name}")))?;
    // Readers on their own threads, so a child filling one pipe never
    // blocks while the other is being read.
    let stdout = reader(child.stdout.take());
    let stderr = reader(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let outcome = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => break Err(PgbenchError::io(format!("waiting for {name}"))(e)),
        }
        if interrupted.load(Ordering::Relaxed) {
            break Err(PgbenchError::Interrupted);
        }
        if Instant::now() >= deadline {
            break Err(PgbenchError::Command(format!(
                "{name} did not finish within {} s (killed)",
                timeout.as_secs()
            )));
        }
        std::thread::sleep(POLL);
    };
    if outcome.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(Finished {
        status: outcome?,
        stdout,
        stderr,
    })
}

fn reader(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// A running server process, its output appended to `log`. Dropping it
/// kills the process if it still runs (the engines' guards stop theirs
/// gently first).
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    log: PathBuf,
    name: &'static str,
    exit: Option<ExitStatus>,
}

impl ServerProcess {
    pub fn spawn(
        command: &mut Command,
        log: &Path,
        name: &'static str,
    ) -> Result<ServerProcess, PgbenchError> {
        let open_log = || {
            File::options()
                .create(true)
                .append(true)
                .open(log)
                .map_err(PgbenchError::io(format!("opening {}", log.display())))
        };
        let child = command
            .stdin(Stdio::null())
            .stdout(open_log()?)
            .stderr(open_log()?)
            .process_group(0)
            .spawn()
            .map_err(PgbenchError::io(format!("starting {name}")))?;
        Ok(ServerProcess {
            child,
            log: log.to_path_buf(),
            name,
            exit: None,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// How the process ended, once it has (it is reaped here).
    pub fn exit_status(&mut self) -> Option<ExitStatus> {
        if self.exit.is_none() {
            self.exit = self.child.try_wait().ok().flatten();
        }
        self.exit
    }

    /// Sends `signal` to the process (not its group).
    pub fn signal(&self, signal: Signal) {
        if self.exit.is_none() {
            signal_pid(self.pid(), signal);
        }
    }

    /// Waits up to `grace` for the process to exit; true if it did.
    pub fn wait_exit(&mut self, grace: Duration) -> bool {
        let deadline = Instant::now() + grace;
        while self.exit_status().is_none() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(POLL);
        }
        true
    }

    /// SIGKILL and reap.
    pub fn kill(&mut self) {
        if self.exit_status().is_none() {
            let _ = self.child.kill();
            self.exit = self.child.wait().ok();
        }
    }

    /// The last `lines` lines of the server's log.
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// The whole log, as far as written.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// "folio serve exited (signal: 9 (SIGKILL))" with the log's last
    /// line, when the process has exited.
    pub fn gone(&mut self) -> Option<String> {
        let status = self.exit_status()?;
        Some(format!(
            "{} exited ({status}); its log ends: {}",
            self.name,
            self.log_tail(1)
        ))
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Sends `signal` to `pid`, ignoring a process that is already gone.
pub fn signal_pid(pid: u32, signal: Signal) {
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = kill_process(pid, signal);
    }
}

/// The fields of `/proc/PID/stat` after the command name: state, ppid.
fn stat(pid: u32) -> Option<(char, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may itself hold spaces or
    // parentheses: the fields resume after the last ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

/// Whether `pid` is a live process (a zombie is not).
pub fn alive(pid: u32) -> bool {
    matches!(stat(pid), Some((state, _)) if state != 'Z')
}

/// The live processes whose parent is `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&child| matches!(stat(child), Some((state, ppid)) if ppid == pid && state != 'Z'))
        .collect()
}

/// Waits up to `timeout` until none of `pids` is alive; true if none is.
pub fn wait_all_gone(pids: &[u32], timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    while pids.iter().any(|&pid| alive(pid)) {
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(POLL);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a client's output and status come back, a client past its
    // timeout is killed and reported, and an interrupt ends the wait.
    #[test]
    fn clients_run_to_completion_or_are_killed() {
        let never = AtomicBool::new(false);
        let done = run(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(30),
            &never,
        )
        .unwrap();
        assert_eq!(done.stdout, "out\n");
        assert_eq!(done.stderr, "err\n");
        assert_eq!(done.status.code(), Some(3));
        let slow = run(
            Command::new("sleep").arg("30"),
            Duration::from_millis(50),
            &never,
        );
        assert!(
            matches!(&slow, Err(PgbenchError::Command(m)) if m.contains("did not finish")),
            "{slow:?}"
        );
        let interrupted = AtomicBool::new(true);
        let stopped = run(
            Command::new("sleep").arg("30"),
            Duration::from_secs(30),
            &interrupted,
        );
        assert!(matches!(stopped, Err(PgbenchError::Interrupted)));
    }

    // Proves the process table is read right: this process is alive and a
    // child of its parent; a reaped child is gone.
    #[test]
    fn process_table() {
        let me = std::process::id();
        assert!(alive(me));
        let parent = stat(me).unwrap().1;
        assert!(children_of(parent).contains(&me));
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(wait_all_gone(&[pid], Duration::from_secs(5)));
    }
}
