//! SCRAM-SHA-256 authentication (RFC 5802 and 7677) as PostgreSQL runs
//! it over protocol 3.0, the server's side: `AuthenticationSASL` offers
//! the mechanism `SCRAM-SHA-256`; the client's first message comes in a
//! `SASLInitialResponse`, is answered by the server's first message
//! (`AuthenticationSASLContinue`: the nonce, the verifier's salt and
//! iterations); the client's final message (its proof, in a
//! `SASLResponse`) is checked against the role's verifier (folio-sql
//! `roles.rs`) and answered by the server's signature
//! (`AuthenticationSASLFinal`), then `AuthenticationOk`.
//!
//! No channel binding: a client asking for it (`p=`) is refused, as
//! PostgreSQL refuses it without TLS. A role without a password goes
//! through the whole exchange and fails at its end with the same error
//! as a wrong password (28P01), as PostgreSQL does, so a client cannot
//! tell the two apart.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use folio_sql::roles::{Verifier, hmac, sha256};
use rand::RngCore;

/// The mechanism offered.
pub const MECHANISM: &str = "SCRAM-SHA-256";

/// Why an exchange failed: the SQLSTATE and message of the FATAL error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError {
    pub code: &'static str,
    pub message: String,
}

fn malformed(what: &str) -> AuthError {
    AuthError {
        code: "08P01",
        message: format!("malformed SCRAM message ({what})"),
    }
}

/// An exchange after the server's first message.
#[derive(Debug)]
pub struct Exchange {
    user: String,
    /// `None`: the role has no password; the exchange fails at its end.
    verifier: Option<Verifier>,
    /// Stands in for the missing verifier's salt and iterations.
    mock: Verifier,
    client_first_bare: String,
    server_first: String,
    nonce: String,
    /// The GS2 header the client sent (`n,,` or `y,,`).
    gs2_header: String,
}

impl Exchange {
    /// Starts the exchange for `user` with the client's first message;
    /// returns it and the server's first message.
    pub fn start(
        user: &str,
        verifier: Option<Verifier>,
        client_first: &[u8],
    ) -> Result<(Exchange, Vec<u8>), AuthError> {
        let text = std::str::from_utf8(client_first).map_err(|_| malformed("not UTF-8"))?;
        let (gs2_header, bare) = match text.as_bytes().first() {
            Some(b'n' | b'y') => {
                let mut parts = text.splitn(3, ',');
                let flag = parts.next().unwrap_or_default();
                let authzid = parts.next().ok_or_else(|| malformed("GS2 header"))?;
                let bare = parts.next().ok_or_else(|| malformed("GS2 header"))?;
                (format!("{flag},{authzid},"), bare)
            }
            Some(b'p') => {
                return Err(AuthError {
                    code: "08P01",
                    message: "channel binding is not supported (no TLS)".into(),
                });
            }
            _ => return Err(malformed("GS2 header")),
        };
        let client_nonce = bare
            .split(',')
            .find_map(|a| a.strip_prefix("r="))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_graphic() && b != b','))
            .ok_or_else(|| malformed("client nonce"))?;
        let mut random = [0u8; 18];
        rand::thread_rng().fill_bytes(&mut random);
        let nonce = format!("{client_nonce}{}", BASE64.encode(random));
        let mut salt = [0u8; 16];
        rand::thread_rng().fill_bytes(&mut salt);
        let mock = Verifier::new("", &salt, folio_sql::roles::ITERATIONS);
        let shown = verifier.as_ref().unwrap_or(&mock);
        let server_first = format!(
            "r={nonce},s={},i={}",
            BASE64.encode(&shown.salt),
            shown.iterations
        );
        let exchange = Exchange {
            user: user.to_string(),
            verifier,
            mock,
            client_first_bare: bare.to_string(),
            server_first: server_first.clone(),
            nonce,
            gs2_header,
        };
        Ok((exchange, server_first.into_bytes()))
    }

    /// Checks the client's final message; the server's final message
    /// (its signature) if the proof is right.
    pub fn finish(self, client_final: &[u8]) -> Result<Vec<u8>, AuthError> {
        let text = std::str::from_utf8(client_final).map_err(|_| malformed("not UTF-8"))?;
        let (without_proof, proof) = text
            .rsplit_once(",p=")
            .ok_or_else(|| malformed("client proof"))?;
        let attribute = |name: &str| {
            without_proof
                .split(',')
                .find_map(|a| a.strip_prefix(name))
                .ok_or_else(|| malformed(name))
        };
        if BASE64.decode(attribute("c=")?).ok().as_deref() != Some(self.gs2_header.as_bytes()) {
            return Err(malformed("channel binding"));
        }
        if attribute("r=")? != self.nonce {
            return Err(malformed("nonce"));
        }
        let proof: [u8; 32] = BASE64
            .decode(proof)
            .ok()
            .and_then(|p| p.try_into().ok())
            .ok_or_else(|| malformed("client proof"))?;
        let auth_message = format!(
            "{},{},{without_proof}",
            self.client_first_bare, self.server_first
        );
        let verifier = self.verifier.as_ref().unwrap_or(&self.mock);
        let signature = hmac(&verifier.stored_key, auth_message.as_bytes());
        let mut client_key = proof;
        for (k, s) in client_key.iter_mut().zip(signature) {
            *k ^= s;
        }
        if self.verifier.is_none() || sha256(&client_key) != verifier.stored_key {
            return Err(AuthError {
                code: "28P01",
                message: format!("password authentication failed for user \"{}\"", self.user),
            });
        }
        let server_signature = hmac(&verifier.server_key, auth_message.as_bytes());
        Ok(format!("v={}", BASE64.encode(server_signature)).into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client's side of the exchange: its final message for `password`
    /// and the server signature it expects.
    fn client_final(
        server_first: &str,
        password: &str,
        client_first_bare: &str,
    ) -> (String, String) {
        let mut parts = server_first.split(',');
        let nonce = parts.next().unwrap().strip_prefix("r=").unwrap();
        let salt = BASE64
            .decode(parts.next().unwrap().strip_prefix("s=").unwrap())
            .unwrap();
        let iterations: u32 = parts
            .next()
            .unwrap()
            .strip_prefix("i=")
            .unwrap()
            .parse()
            .unwrap();
        let v = Verifier::new(password, &salt, iterations);
        let without_proof = format!("c=biws,r={nonce}");
        let auth = format!("{client_first_bare},{server_first},{without_proof}");
        // ClientKey = StoredKey's preimage: recompute it from the password.
        let salted = {
            let mut first = salt.clone();
            first.extend_from_slice(&1u32.to_be_bytes());
            let mut u = hmac(password.as_bytes(), &first);
            let mut out = u;
            for _ in 1..iterations {
                u = hmac(password.as_bytes(), &u);
                out.iter_mut().zip(u).for_each(|(o, x)| *o ^= x);
            }
            out
        };
        let client_key = hmac(&salted, b"Client Key");
        let signature = hmac(&v.stored_key, auth.as_bytes());
        let proof: Vec<u8> = client_key
            .iter()
            .zip(signature)
            .map(|(k, s)| k ^ s)
            .collect();
        let expected = format!("v={}", BASE64.encode(hmac(&v.server_key, auth.as_bytes())));
        (
            format!("{without_proof},p={}", BASE64.encode(proof)),
            expected,
        )
    }

    // Proves a client that knows the password is accepted and gets the
    // server's signature it computes itself; a wrong password, a role
    // without one, a changed nonce and channel binding are refused.
    #[test]
    fn exchange_accepts_the_password_only() {
        let verifier = Verifier::new("pencil", b"0123456789abcdef", 4096);
        let first = b"n,,n=,r=clientnonce";
        let run = |verifier: Option<Verifier>, password: &str| {
            let (exchange, server_first) = Exchange::start("postgres", verifier, first).unwrap();
            let server_first = String::from_utf8(server_first).unwrap();
            let (last, expected) = client_final(&server_first, password, "n=,r=clientnonce");
            (exchange.finish(last.as_bytes()), expected)
        };
        let (ok, expected) = run(Some(verifier.clone()), "pencil");
        assert_eq!(String::from_utf8(ok.unwrap()).unwrap(), expected);
        assert_eq!(
            run(Some(verifier.clone()), "wrong").0.unwrap_err().code,
            "28P01"
        );
        assert_eq!(run(None, "").0.unwrap_err().code, "28P01");
        let (exchange, _) = Exchange::start("postgres", Some(verifier.clone()), first).unwrap();
        assert_eq!(
            exchange
                .finish(b"c=biws,r=othernonce,p=AAAA")
                .unwrap_err()
                .code,
            "08P01"
        );
        assert_eq!(
            Exchange::start(
                "postgres",
                Some(verifier),
                b"p=tls-server-end-point,,n=,r=x"
            )
            .unwrap_err()
            .code,
            "08P01"
        );
    }
}
