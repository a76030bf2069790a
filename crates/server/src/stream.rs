//! A client's byte stream: TCP, or a Unix-domain socket (PostgreSQL's
//! local connections, which `psql` and `pgbench` make when given no host
//! or a directory as the host). The startup runs it on the accept
//! thread's runtime ([`Accepted`]); sessions then read and write it with
//! plain calls ([`Stream`]).

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use tokio::io::{AsyncRead, AsyncWrite};

/// A started connection's stream, out of the accept thread's runtime.
#[derive(Debug)]
pub(crate) enum Stream {
    Tcp(std::net::TcpStream),
    Unix(std::os::unix::net::UnixStream),
}

impl Stream {
    pub(crate) fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_nonblocking(nonblocking),
            Stream::Unix(s) => s.set_nonblocking(nonblocking),
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.flush(),
            Stream::Unix(s) => s.flush(),
        }
    }
}

impl AsFd for Stream {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            Stream::Tcp(s) => s.as_fd(),
            Stream::Unix(s) => s.as_fd(),
        }
    }
}

/// An accepted connection on the accept thread's runtime, during its
/// startup.
pub(crate) trait Accepted: AsyncRead + AsyncWrite + Unpin + Send + 'static {
    /// Readies it for the protocol: TCP sends each answer at once
    /// (`TCP_NODELAY`, as PostgreSQL sets it).
    fn prepare(&self) -> io::Result<()>;

    /// Leaves the runtime (still non-blocking).
    fn into_stream(self) -> io::Result<Stream>;

    /// The client's address and port (`pg_stat_activity`): none for a
    /// Unix-domain socket's.
    fn peer(&self) -> Option<(String, u16)>;

    /// The server's address and port the client reached
    /// (`inet_server_addr()`): none for a Unix-domain socket.
    fn local(&self) -> Option<(String, u16)>;
}

impl Accepted for tokio::net::TcpStream {
    fn prepare(&self) -> io::Result<()> {
        self.set_nodelay(true)
    }

    fn into_stream(self) -> io::Result<Stream> {
        self.into_std().map(Stream::Tcp)
    }

    fn peer(&self) -> Option<(String, u16)> {
        let addr = self.peer_addr().ok()?;
        Some((addr.ip().to_string(), addr.port()))
    }

    fn local(&self) -> Option<(String, u16)> {
        let addr = self.local_addr().ok()?;
        Some((addr.ip().to_string(), addr.port()))
    }
}

impl Accepted for tokio::net::UnixStream {
    fn prepare(&self) -> io::Result<()> {
        Ok(())
    }

    fn into_stream(self) -> io::Result<Stream> {
        self.into_std().map(Stream::Unix)
    }

    fn peer(&self) -> Option<(String, u16)> {
        None
    }

    fn local(&self) -> Option<(String, u16)> {
        None
    }
}
