//! Session settings: `SET`, `SHOW`, `RESET` with PostgreSQL's names and
//! values for those folio honours. An unknown name is 42704; a value folio
//! cannot honour (another time zone, date style or encoding) is 0A000,
//! never silently ignored.

use crate::error::SqlError;

/// The server version clients see: PostgreSQL 15's, whose behaviour folio
/// follows, then folio's own (psql 15 then raises no version warning).
pub const SERVER_VERSION: &str = concat!("15.0 (folio ", env!("CARGO_PKG_VERSION"), ")");

/// A session's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `on`, `off`, `local`, `remote_write`, `remote_apply`: only `off`
    /// commits asynchronously (folio has no standbys yet).
    synchronous_commit: String,
    application_name: String,
    extra_float_digits: i32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            synchronous_commit: "on".into(),
            application_name: String::new(),
            extra_float_digits: 1,
        }
    }
}

fn unknown(name: &str) -> SqlError {
    SqlError::new(
        "42704",
        format!("unrecognized configuration parameter \"{name}\""),
    )
}

fn invalid(name: &str, value: &str) -> SqlError {
    SqlError::new(
        "22023",
        format!("invalid value for parameter \"{name}\": \"{value}\""),
    )
}

impl Settings {
    /// Whether commits wait for the WAL flush (`synchronous_commit`).
    pub fn synchronous(&self) -> bool {
        self.synchronous_commit != "off"
    }

    /// `SET name = value` (`name` lower case, `value` as written).
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), SqlError> {
        let lower = value.trim().to_ascii_lowercase();
        match name {
            "synchronous_commit" => {
                self.synchronous_commit = match lower.as_str() {
                    "on" | "true" | "yes" | "1" => "on",
                    "off" | "false" | "no" | "0" => "off",
                    "local" | "remote_write" | "remote_apply" => &lower,
                    _ => return Err(invalid(name, value)),
                }
                .to_string();
            }
            "application_name" => self.application_name = value.to_string(),
            "extra_float_digits" => {
                self.extra_float_digits = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|d| (-15..=3).contains(d))
                    .ok_or_else(|| invalid(name, value))?;
            }
            // Only the values folio works in are accepted.
            "client_encoding" if matches!(lower.as_str(), "utf8" | "utf-8" | "unicode") => {}
            "datestyle" if matches!(lower.replace(' ', "").as_str(), "iso" | "iso,mdy") => {}
            "timezone" if matches!(lower.as_str(), "utc" | "gmt" | "etc/utc" | "z") => {}
            "search_path"
                if matches!(
                    lower.replace(' ', "").as_str(),
                    "public" | "\"$user\",public"
                ) => {}
            "client_encoding" | "datestyle" | "timezone" | "search_path" => {
                return Err(SqlError::unsupported(format!("{name} = {value}")));
            }
            _ => return Err(unknown(name)),
        }
        Ok(())
    }

    /// `RESET name`; `RESET ALL` is `name = "all"`.
    pub fn reset(&mut self, name: &str) -> Result<(), SqlError> {
        let default = Settings::default();
        match name {
            "all" => *self = default,
            "synchronous_commit" => self.synchronous_commit = default.synchronous_commit,
            "application_name" => self.application_name = default.application_name,
            "extra_float_digits" => self.extra_float_digits = default.extra_float_digits,
            "client_encoding" | "datestyle" | "timezone" | "search_path" => {}
            _ => return Err(unknown(name)),
        }
        Ok(())
    }

    /// `SHOW name`: the value as PostgreSQL prints it.
    pub fn show(&self, name: &str) -> Result<String, SqlError> {
        Ok(match name {
            "synchronous_commit" => self.synchronous_commit.clone(),
            "application_name" => self.application_name.clone(),
            "extra_float_digits" => self.extra_float_digits.to_string(),
            "client_encoding" | "server_encoding" => "UTF8".into(),
            "datestyle" => "ISO, MDY".into(),
            "timezone" => "UTC".into(),
            "search_path" => "\"$user\", public".into(),
            "server_version" => SERVER_VERSION.into(),
            "server_version_num" => "150000".into(),
            "integer_datetimes" | "standard_conforming_strings" => "on".into(),
            "max_identifier_length" => "63".into(),
            _ => return Err(unknown(name)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves SET/SHOW/RESET as PostgreSQL 15 answers them for the
    // settings folio honours, and the refusals.
    #[test]
    fn set_show_reset() {
        let mut s = Settings::default();
        assert!(s.synchronous());
        s.set("synchronous_commit", "OFF").unwrap();
        assert_eq!(s.show("synchronous_commit").unwrap(), "off");
        assert!(!s.synchronous());
        s.set("synchronous_commit", "local").unwrap();
        assert!(s.synchronous());
        assert_eq!(
            s.set("synchronous_commit", "maybe").unwrap_err().code,
            "22023"
        );
        s.reset("synchronous_commit").unwrap();
        assert_eq!(s.show("synchronous_commit").unwrap(), "on");
        s.set("application_name", "pgbench").unwrap();
        s.set("timezone", "UTC").unwrap();
        assert_eq!(s.set("timezone", "Europe/Paris").unwrap_err().code, "0A000");
        assert_eq!(s.set("nosuch", "1").unwrap_err().code, "42704");
        assert_eq!(s.show("nosuch").unwrap_err().code, "42704");
        s.reset("all").unwrap();
        assert_eq!(s, Settings::default());
        assert!(
            s.show("server_version")
                .unwrap()
                .starts_with("15.0 (folio ")
        );
    }
}
