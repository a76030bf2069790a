//! `Execution::Pool`: sessions run on a few worker threads (one per core)
//! that share one epoll instance, so a connection costs no thread of its
//! own and a busy worker serves the next ready client without sleeping.
//!
//! Protocol (README "Shape"): every connection is registered
//! edge-triggered, so an event comes for every arrival of bytes. The
//! worker whose wait returned an event claims the connection (its `state`
//! goes `RUNNING`) unless another worker runs it, in which case it only
//! marks `AGAIN` and the owner takes one more turn. A turn runs the
//! complete messages already read, reads once (again only if the read
//! filled its buffer), runs what that completed (`connection.rs`) and
//! writes the answers; bytes that come after that read bring a new
//! event. A wait that may outlast a batch (folio-io's `blocking::region`:
//! a row lock held by an idle session, a commit's WAL flush, a client slow
//! to read its answers) first hands the worker's place to a parked thread,
//! or a new one, so `workers` threads always poll however many sleep;
//! after its batch a thread in excess parks. A turn that runs long (a
//! monitor thread looks every 10 ms) gives its place away the same way,
//! so a few long statements never stall the other sessions. Why this
//! cannot deadlock:
//! everything a running batch waits for without the hook is done by a
//! thread that runs now (a latch holder, the WAL flush leader, a commit
//! between its CSN and its mark); the one wait on something an idle
//! session must do (a row lock it holds) is hooked, and each hooked
//! sleeper has given its place back, so `workers` threads stay free to
//! run the holder's COMMIT however many sessions sleep.

use crate::connection::Connection;
use crate::protocol::ProtocolError;
use crate::server::Slot;
use crate::stream::Stream;
use crate::wire::{self, Batch, Inbox};
use rustix::event::epoll::{self, EventData, EventFlags};
use rustix::event::{EventfdFlags, PollFd, PollFlags};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// The token of the stop signal's eventfd.
const STOP: u64 = 0;

/// How often the monitor looks for long turns: a turn seen running at two
/// looks in a row (10-20 ms) loses its worker's place to another thread.
const LOOK_EVERY: Duration = Duration::from_millis(10);

/// Ready connections a worker takes per wait: one, so that a worker never
/// holds ready clients while another worker idles.
const EVENTS_PER_WAIT: usize = 1;

/// A running pool of workers.
pub(crate) struct Pool {
    inner: Arc<Inner>,
}

struct Inner {
    epoll: OwnedFd,
    /// Written once at stop, never read: level-triggered, it wakes every
    /// worker's wait from then on.
    stop: OwnedFd,
    stopping: AtomicBool,
    conns: Mutex<Conns>,
    /// How many connections `conns` holds, read without its lock.
    pooled: AtomicUsize,
    /// Threads that poll, wanted.
    workers: usize,
    /// Connections on threads of their own, and how many may be.
    own_threads: AtomicUsize,
    max_own_threads: usize,
    crew: Mutex<Crew>,
    /// Parked threads wait here to be summoned.
    summon: Condvar,
    /// Each worker thread's turns, for the monitor.
    turns: Mutex<Vec<Arc<Turns>>>,
}

/// A worker thread's turns: `seq` is odd while it runs one; `detached`
/// when the monitor found the turn long and gave its place away.
#[derive(Default)]
struct Turns {
    seq: AtomicU64,
    detached: AtomicBool,
}

#[derive(Default)]
struct Conns {
    next: u64,
    open: HashMap<u64, Arc<Entry>>,
}

/// A connection and who runs it: `RUNNING` while a worker owns it,
/// `AGAIN` when an event came since the owner last read.
struct Entry {
    state: AtomicU8,
    served: Mutex<Served>,
}

const RUNNING: u8 = 1;
const AGAIN: u8 = 2;

/// Who is doing what: `polling` threads wait for or serve connections
/// (excluding those asleep in a blocking region), `parked` ones wait for a
/// summons.
#[derive(Default)]
struct Crew {
    polling: usize,
    parked: usize,
    summoned: usize,
}

/// One connection in the pool: owned by the worker its event woke.
struct Served {
    stream: Stream,
    inbox: Inbox,
    conn: Connection,
    slot: Slot,
}

/// What a connection's turn ended with.
enum Next {
    /// Wait for more bytes.
    Wait,
    Close,
}

thread_local! {
    /// The pool this thread works for, if it is a worker.
    static WORKER: RefCell<Option<Arc<Inner>>> = const { RefCell::new(None) };
}

/// Looks at every worker's turns each [`LOOK_EVERY`]: a turn still running
/// since the last look (a long statement, an index build) gives its
/// worker's place to another thread, as a blocking region does, so a
/// few long statements never stall every other session. The worker
/// takes its place back when the turn ends.
fn monitor(inner: Arc<Inner>) {
    let mut seen: HashMap<usize, u64> = HashMap::new();
    while !inner.stopping.load(Ordering::SeqCst) {
        std::thread::sleep(LOOK_EVERY);
        let turns = lock(&inner.turns).clone();
        let mut now = HashMap::with_capacity(turns.len());
        for turn in &turns {
            let id = Arc::as_ptr(turn) as usize;
            let seq = turn.seq.load(Ordering::Acquire);
            if seq % 2 == 1
                && seen.get(&id) == Some(&seq)
                && !turn.detached.swap(true, Ordering::AcqRel)
            {
                inner.leave();
            }
            now.insert(id, seq);
        }
        seen = now;
    }
}

impl Pool {
    /// Starts `workers` threads (at least one); up to `own_threads`
    /// connections will have threads of their own.
    pub(crate) fn start(workers: usize, own_threads: usize) -> io::Result<Pool> {
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC)?;
        let stop = rustix::event::eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?;
        epoll::add(&epoll, &stop, EventData::new_u64(STOP), EventFlags::IN)?;
        let inner = Arc::new(Inner {
            epoll,
            stop,
            stopping: AtomicBool::new(false),
            conns: Mutex::new(Conns {
                next: STOP + 1,
                open: HashMap::new(),
            }),
            pooled: AtomicUsize::new(0),
            workers: workers.max(1),
            own_threads: AtomicUsize::new(0),
            max_own_threads: own_threads,
            crew: Mutex::new(Crew::default()),
            summon: Condvar::new(),
            turns: Mutex::new(Vec::new()),
        });
        for _ in 0..inner.workers {
            lock(&inner.crew).polling += 1;
            spawn(inner.clone())?;
        }
        let watched = inner.clone();
        std::thread::Builder::new()
            .name("folio-monitor".into())
            .spawn(move || monitor(watched))?;
        Ok(Pool { inner })
    }

    /// A place for a connection on a thread of its own, while fewer than
    /// `own_threads` have one and the workers serve none (README "Shape":
    /// a few clients are served faster by threads that each wait on one
    /// socket); freed on drop.
    pub(crate) fn own_thread(&self) -> Option<OwnThread> {
        if self.crowded() {
            return None;
        }
        let own = &self.inner.own_threads;
        own.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < self.inner.max_own_threads).then_some(n + 1)
        })
        .ok()?;
        Some(OwnThread {
            inner: self.inner.clone(),
        })
    }

    /// Whether the workers serve connections: then those on threads of
    /// their own move to the workers between requests. Served both ways
    /// at once, the few on their own threads, whose every request wakes
    /// its thread at once, took most of the server (seed 000's probe at
    /// 128 clients: 2 connections ran 43% of the transactions, each of the
    /// other 126 a fiftieth of theirs).
    pub(crate) fn crowded(&self) -> bool {
        self.inner.pooled.load(Ordering::Acquire) > 0
    }

    /// Serves a started connection (its stream non-blocking) from now on;
    /// `slot` is freed when it ends.
    pub(crate) fn add(&self, stream: Stream, inbox: Inbox, conn: Connection, slot: Slot) {
        let pending = !inbox.unread().is_empty();
        if let Err(e) = stream.set_nonblocking(true) {
            return wire::report(slot.pid(), Err(e.into()));
        }
        let entry = Arc::new(Entry {
            state: AtomicU8::new(0),
            served: Mutex::new(Served {
                stream,
                inbox,
                conn,
                slot,
            }),
        });
        let token = self.inner.insert(entry.clone());
        // Its startup ended as the server stopped: it closes here (`stop`
        // sets `stopping` before it empties `open`, so either it emptied
        // this entry or this sees the flag).
        if self.inner.stopping.load(Ordering::SeqCst) {
            self.inner.remove(token);
            return;
        }
        // Bytes read past the startup: writable fires at once, and the
        // turn runs them before reading.
        let mut flags = armed();
        if pending {
            flags |= EventFlags::OUT;
        }
        let guard = lock(&entry.served);
        // The session's waker (a terminate, a notification) brings a turn
        // too: edge-triggered, an event for every write.
        let woken = epoll::add(
            &self.inner.epoll,
            guard.conn.wake_fd(),
            token_data(token),
            EventFlags::IN | EventFlags::ET,
        );
        if let Err(e) = woken
            .and_then(|()| epoll::add(&self.inner.epoll, &guard.stream, token_data(token), flags))
        {
            drop(guard);
            self.inner.remove(token);
            eprintln!("folio: cannot poll a connection: {e}");
        }
    }

    /// Stops serving: every worker ends after its batch, every idle
    /// connection is closed (its open transaction rolls back).
    pub(crate) fn stop(&self) {
        let inner = &self.inner;
        inner.stopping.store(true, Ordering::SeqCst);
        let _ = rustix::io::write(&inner.stop, &1u64.to_ne_bytes());
        let _crew = lock(&inner.crew);
        inner.summon.notify_all();
        drop(_crew);
        let open = std::mem::take(&mut lock(&inner.conns).open);
        inner.pooled.store(0, Ordering::Release);
        drop(open);
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("workers", &self.inner.workers)
            .finish_non_exhaustive()
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A connection's place on a thread of its own.
pub(crate) struct OwnThread {
    inner: Arc<Inner>,
}

impl Drop for OwnThread {
    fn drop(&mut self) {
        self.inner.own_threads.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A new worker thread.
fn spawn(inner: Arc<Inner>) -> io::Result<()> {
    std::thread::Builder::new()
        .stack_size(folio_sql::SESSION_STACK)
        .name("folio-worker".into())
        .spawn(move || work(inner))
        .map(|_| ())
}

/// Edge-triggered reads and hang-ups: an event for every arrival.
fn armed() -> EventFlags {
    EventFlags::IN | EventFlags::RDHUP | EventFlags::ET
}

fn token_data(token: u64) -> EventData {
    EventData::new_u64(token)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A worker's life: wait for a ready connection, give it a turn, park when
/// in excess (a thread back from a blocking region).
fn work(inner: Arc<Inner>) {
    WORKER.with(|w| *w.borrow_mut() = Some(inner.clone()));
    let turns = Arc::new(Turns::default());
    lock(&inner.turns).push(turns.clone());
    let mut events = Vec::with_capacity(EVENTS_PER_WAIT);
    let mut chunk = vec![0u8; wire::READ_CHUNK_BYTES];
    while !inner.stopping.load(Ordering::SeqCst) {
        events.clear();
        match epoll::wait(
            &inner.epoll,
            rustix::buffer::spare_capacity(&mut events),
            None,
        ) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => {
                eprintln!("folio: a worker cannot wait for connections: {e}");
                break;
            }
        }
        for event in events.iter() {
            let token = event.data.u64();
            if token != STOP {
                turns.seq.fetch_add(1, Ordering::AcqRel);
                inner.serve(token, &mut chunk);
                turns.seq.fetch_add(1, Ordering::AcqRel);
                if turns.detached.swap(false, Ordering::AcqRel) {
                    inner.rejoin();
                }
            }
        }
        if !inner.park_if_in_excess() {
            break;
        }
    }
    lock(&inner.turns).retain(|t| !Arc::ptr_eq(t, &turns));
    WORKER.with(|w| *w.borrow_mut() = None);
}

impl Inner {
    /// Gives connection `token` its turns while events come for it, unless
    /// another worker runs it (which then takes another turn).
    fn serve(&self, token: u64, chunk: &mut [u8]) {
        let Some(entry) = lock(&self.conns).open.get(&token).cloned() else {
            // Closed since: nothing to do.
            return;
        };
        if entry.state.fetch_or(RUNNING | AGAIN, Ordering::AcqRel) & RUNNING != 0 {
            return;
        }
        let mut guard = lock(&entry.served);
        let ended = loop {
            entry.state.fetch_and(!AGAIN, Ordering::AcqRel);
            match guard.turn(chunk) {
                Ok(Next::Wait) => {}
                ended => break ended,
            }
            if entry
                .state
                .compare_exchange(RUNNING, 0, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return;
            }
        };
        let pid = guard.slot.pid();
        drop(guard);
        wire::report(pid, ended.map(|_| ()));
        // The last reference but a stop's: the session drops here.
        self.remove(token);
    }

    /// Registers a connection the workers serve: its token.
    fn insert(&self, entry: Arc<Entry>) -> u64 {
        let mut conns = lock(&self.conns);
        let token = conns.next;
        conns.next += 1;
        conns.open.insert(token, entry);
        self.pooled.store(conns.open.len(), Ordering::Release);
        token
    }

    /// Forgets a connection (dropping its session unless a turn or a stop
    /// still holds it).
    fn remove(&self, token: u64) {
        let mut conns = lock(&self.conns);
        let entry = conns.open.remove(&token);
        self.pooled.store(conns.open.len(), Ordering::Release);
        drop(conns);
        drop(entry);
    }

    /// After a batch: a thread beyond `workers` polling parks until a
    /// blocking region summons it. `false` when the pool stops.
    fn park_if_in_excess(&self) -> bool {
        let mut crew = lock(&self.crew);
        if crew.polling <= self.workers {
            return true;
        }
        crew.polling -= 1;
        crew.parked += 1;
        loop {
            if self.stopping.load(Ordering::SeqCst) {
                crew.parked -= 1;
                return false;
            }
            if crew.summoned > 0 {
                // The summoner counted this thread as polling.
                crew.summoned -= 1;
                return true;
            }
            crew = self.summon.wait(crew).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Before a wait that may outlast a batch: this thread stops counting
    /// as polling, and a parked thread (or a new one) takes its place.
    fn leave(self: &Arc<Self>) {
        let mut crew = lock(&self.crew);
        crew.polling -= 1;
        if crew.polling >= self.workers {
            return;
        }
        crew.polling += 1;
        if crew.parked > 0 {
            crew.parked -= 1;
            crew.summoned += 1;
            self.summon.notify_one();
            return;
        }
        drop(crew);
        if let Err(e) = spawn(self.clone()) {
            // The sleeper's place stays empty: the other workers go on.
            lock(&self.crew).polling -= 1;
            eprintln!("folio: no thread to stand in for a waiting session: {e}");
        }
    }

    /// After the wait: this thread polls again (and parks after its batch
    /// if that makes one too many).
    fn rejoin(&self) {
        lock(&self.crew).polling += 1;
    }
}

/// folio-io's blocking hook: on a worker of a pool, a wait that may
/// outlast a batch (a row lock held by an idle session, a commit's WAL
/// flush, a client slow to read) first hands the worker's place to another
/// thread, so sleepers never hold every worker. Elsewhere (a connection's
/// own thread) it just runs the wait.
pub(crate) fn block_in_place(f: &mut dyn FnMut()) {
    let Some(inner) = WORKER.with(|w| w.borrow().clone()) else {
        return f();
    };
    inner.leave();
    f();
    inner.rejoin();
}

impl Served {
    /// Runs the complete messages already read, reads once, runs what that
    /// completed and sends the answers: a request, typically.
    fn turn(&mut self, chunk: &mut [u8]) -> Result<Next, ProtocolError> {
        let mut drained = false;
        loop {
            let stream = &mut self.stream;
            let needed = match self
                .inbox
                .serve(&mut self.conn, &mut |answers| send(stream, answers))?
            {
                Batch::Ran => continue,
                Batch::Close => return Ok(Next::Close),
                Batch::Needs(needed) => needed,
            };
            if drained {
                // Bytes that come after that read bring an event.
                return Ok(Next::Wait);
            }
            match self.inbox.read_from(&mut self.stream, needed, chunk) {
                Ok(0) => return Ok(Next::Close),
                Ok(n) => drained = n < chunk.len(),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Next::Wait),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// Writes all of `buf` to the non-blocking `stream`, waiting (in a blocking
/// region) while the client's window is full.
fn send(stream: &mut Stream, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        match stream.write(buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                folio_io::blocking::region(|| {
                    let mut fds = [PollFd::new(&*stream, PollFlags::OUT)];
                    rustix::event::poll(&mut fds, None)
                })?;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
