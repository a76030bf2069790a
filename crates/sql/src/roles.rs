//! Roles and their passwords. folio has one role, `postgres`, the
//! superuser `initdb` makes. Its password is kept as PostgreSQL keeps a
//! SCRAM-SHA-256 password (RFC 5802 and 7677): a verifier
//! `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>` (base64),
//! never the password itself.
//!
//! `ALTER ROLE | USER postgres [WITH] PASSWORD 'text' | NULL` sets it: a
//! text that already is a verifier (psql's `\password` sends one, made
//! on the client) is kept as it is, any other text is the password and
//! its verifier is made here with a random salt and 4,096 iterations
//! (PostgreSQL's `scram_iterations`). It is kept in the database's logged
//! tree `folio.authid` and made durable at once: crash-safe, but not
//! undone by a rolled-back block (PostgreSQL's pg_authid row would be).
//! `folio serve --auth scram-sha-256` checks it (folio-server `scram.rs`).
//! Passwords are used as their UTF-8 bytes (PostgreSQL applies SASLprep
//! first, which changes only non-ASCII passwords).

use crate::error::SqlError;
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use folio_db::Database;
use hmac::{Hmac, KeyInit, Mac};
use rand::RngCore;
use sha2::{Digest, Sha256};

/// The one role.
pub const SUPERUSER: &str = "postgres";
/// The logged tree of role name → verifier.
const AUTHID_TREE: &str = "folio.authid";
/// Iterations of a verifier made here (PostgreSQL's default).
pub const ITERATIONS: u32 = 4096;
const PREFIX: &str = "SCRAM-SHA-256$";

/// Whether role `name` exists.
pub fn exists(name: &str) -> bool {
    name == SUPERUSER
}

/// A SCRAM-SHA-256 verifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verifier {
    pub iterations: u32,
    pub salt: Vec<u8>,
    pub stored_key: [u8; 32],
    pub server_key: [u8; 32],
}

impl Verifier {
    /// The verifier of `password` with `salt`.
    pub fn new(password: &str, salt: &[u8], iterations: u32) -> Verifier {
        let salted = hi(password.as_bytes(), salt, iterations);
        Verifier {
            iterations,
            salt: salt.to_vec(),
            stored_key: sha256(&hmac(&salted, b"Client Key")),
            server_key: hmac(&salted, b"Server Key"),
        }
    }

    /// PostgreSQL's text form, if `text` is one.
    pub fn parse(text: &str) -> Option<Verifier> {
        let rest = text.strip_prefix(PREFIX)?;
        let (params, keys) = rest.split_once('$')?;
        let (iterations, salt) = params.split_once(':')?;
        let (stored, server) = keys.split_once(':')?;
        let key = |b64: &str| -> Option<[u8; 32]> { BASE64.decode(b64).ok()?.try_into().ok() };
        Some(Verifier {
            iterations: iterations.parse().ok().filter(|&i| i > 0)?,
            salt: BASE64.decode(salt).ok()?,
            stored_key: key(stored)?,
            server_key: key(server)?,
        })
    }

    /// PostgreSQL's text form.
    pub fn text(&self) -> String {
        format!(
            "{PREFIX}{}:{}${}:{}",
            self.iterations,
            BASE64.encode(&self.salt),
            BASE64.encode(self.stored_key),
            BASE64.encode(self.server_key)
        )
    }
}

/// HMAC-SHA-256.
pub fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

/// SHA-256.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    Sha256::digest(data).into()
}

/// SCRAM's `Hi` (PBKDF2 with HMAC-SHA-256, one block).
fn hi(password: &[u8], salt: &[u8], iterations: u32) -> [u8; 32] {
    let mut first = salt.to_vec();
    first.extend_from_slice(&1u32.to_be_bytes());
    let mut u = hmac(password, &first);
    let mut out = u;
    for _ in 1..iterations {
        u = hmac(password, &u);
        for (o, x) in out.iter_mut().zip(u) {
            *o ^= x;
        }
    }
    out
}

/// Role `role`'s verifier, if it has a password.
pub fn password(db: &Database, role: &str) -> Result<Option<Verifier>, SqlError> {
    let Some(tree) = db.open_tree(AUTHID_TREE)? else {
        return Ok(None);
    };
    let Some(stored) = tree.get(role.as_bytes()).map_err(folio_db::DbError::from)? else {
        return Ok(None);
    };
    let text = String::from_utf8(stored).unwrap_or_default();
    Verifier::parse(&text).map(Some).ok_or_else(|| {
        SqlError::new(
            "XX001",
            format!("the stored password of role \"{role}\" is not a SCRAM-SHA-256 verifier"),
        )
    })
}

/// Sets (or with `None` removes) role `role`'s password; durable when it
/// returns.
pub fn set_password(db: &Database, role: &str, password: Option<&str>) -> Result<(), SqlError> {
    if !exists(role) {
        return Err(SqlError::new(
            "42704",
            format!("role \"{role}\" does not exist"),
        ));
    }
    let tree = match db.open_tree(AUTHID_TREE)? {
        Some(tree) => tree,
        None => db.create_tree(AUTHID_TREE)?,
    };
    let key = role.as_bytes();
    match password {
        None => {
            tree.delete(key).map_err(folio_db::DbError::from)?;
        }
        Some(text) => {
            let verifier = match Verifier::parse(text) {
                Some(v) => v,
                None if text.starts_with(PREFIX) || text.starts_with("md5") => {
                    return Err(SqlError::new(
                        "22023",
                        "the password is neither a SCRAM-SHA-256 verifier nor plain text folio accepts",
                    ));
                }
                None => {
                    let mut salt = [0u8; 16];
                    rand::thread_rng().fill_bytes(&mut salt);
                    Verifier::new(text, &salt, ITERATIONS)
                }
            };
            tree.upsert(key, verifier.text().as_bytes())
                .map_err(folio_db::DbError::from)?;
        }
    }
    db.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the verifier matches RFC 7677's test vector (user "user",
    // password "pencil", its salt and 4096 iterations give the
    // ServerSignature the RFC shows) and survives its text form.
    #[test]
    fn rfc7677_vector_and_text_form() {
        let salt = BASE64.decode("W22ZaJ0SNY7soEsUEjb6gQ==").unwrap();
        let v = Verifier::new("pencil", &salt, 4096);
        let auth = "n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
        let signature = hmac(&v.server_key, auth.as_bytes());
        assert_eq!(
            BASE64.encode(signature),
            "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
        );
        assert_eq!(Verifier::parse(&v.text()), Some(v));
        assert_eq!(Verifier::parse("SCRAM-SHA-256$0:AA==$AA==:AA=="), None);
    }
}
