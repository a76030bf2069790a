//! The Unix-domain sockets a server listens on besides TCP, as
//! PostgreSQL's `unix_socket_directories`: `DIR/.s.PGSQL.PORT`, named by
//! the TCP port, so a client given the directory as its host (libpq's
//! default when no host is given) and the port finds the server.

use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// A socket file this server made: removed when the server stops.
#[derive(Debug)]
pub(crate) struct SocketFile {
    path: PathBuf,
}

impl SocketFile {
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Listens on `dir/.s.PGSQL.port`, open to every local user (PostgreSQL's
/// default `unix_socket_permissions`, 0777). A socket file no server
/// answers on (left by a crash) is replaced; one a live server answers on
/// is an error, as a taken TCP port is.
pub(crate) fn bind(dir: &Path, port: u16) -> io::Result<(UnixListener, SocketFile)> {
    let path = dir.join(format!(".s.PGSQL.{port}"));
    let shown = path.display().to_string();
    let in_path = |e: io::Error| io::Error::new(e.kind(), format!("{shown}: {e}"));
    if std::fs::symlink_metadata(&path).is_ok() {
        if UnixStream::connect(&path).is_ok() {
            return Err(in_path(io::Error::new(
                io::ErrorKind::AddrInUse,
                "another server listens on this socket",
            )));
        }
        std::fs::remove_file(&path).map_err(in_path)?;
    }
    let listener = UnixListener::bind(&path).map_err(in_path)?;
    let file = SocketFile { path };
    std::fs::set_permissions(file.path(), std::fs::Permissions::from_mode(0o777))
        .map_err(in_path)?;
    listener.set_nonblocking(true)?;
    Ok((listener, file))
}
