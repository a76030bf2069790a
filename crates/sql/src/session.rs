//! A session: statements in order, the transaction block around them.
//!
//! States as PostgreSQL's (README "The session and its transaction
//! block"): idle, in a block, failed block. Outside a block each statement
//! runs in its own transaction, committed when it succeeds. An error
//! inside a block rolls its transaction back at once and leaves the block
//! failed: every statement but `COMMIT`/`END`/`ROLLBACK` is then 25P02
//! (PostgreSQL keeps the failed transaction's locks until `ROLLBACK`;
//! folio releases them at the error).

use crate::error::SqlError;
use crate::output::{Output, TxStatus};
use crate::{ddl, dml, query};
use folio_db::{Database, Durability, Isolation, Transaction};
use sqlparser::ast::{Statement, TransactionIsolationLevel, TransactionMode};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::parser::Parser;
use std::sync::Arc;

/// One client's session over a database.
pub struct Session {
    db: Arc<Database>,
    block: Block,
    notices: Vec<String>,
}

enum Block {
    Idle,
    Open(Transaction),
    Failed,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

impl Session {
    pub fn new(db: Arc<Database>) -> Session {
        Session {
            db,
            block: Block::Idle,
            notices: Vec::new(),
        }
    }

    /// The transaction status (the protocol's ReadyForQuery byte).
    pub fn status(&self) -> TxStatus {
        match self.block {
            Block::Idle => TxStatus::Idle,
            Block::Open(_) => TxStatus::InBlock,
            Block::Failed => TxStatus::Failed,
        }
    }

    /// Notices and warnings raised since the last call (PostgreSQL's
    /// NoticeResponse: `table "x" does not exist, skipping`, ...).
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// Runs the statements of a simple-query message in order, stopping
    /// at the first error (as PostgreSQL does): the outputs of those that
    /// ran, and the error if one failed.
    pub fn simple_query(&mut self, sql: &str) -> (Vec<Output>, Option<SqlError>) {
        let statements = match Parser::parse_sql(&PostgreSqlDialect {}, sql) {
            Ok(statements) => statements,
            Err(e) => {
                self.fail();
                return (Vec::new(), Some(SqlError::syntax(e.to_string())));
            }
        };
        let mut outputs = Vec::new();
        for statement in &statements {
            match self.execute(statement) {
                Ok(output) => outputs.push(output),
                Err(e) => {
                    self.fail();
                    return (outputs, Some(e));
                }
            }
        }
        (outputs, None)
    }

    /// An error: a block fails (its transaction rolls back now).
    fn fail(&mut self) {
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Open(txn) => {
                // The error reported is the statement's; a failed rollback
                // leaves the xid to the abort-by-rule of folio-txn.
                let _ = txn.rollback();
                self.block = Block::Failed;
            }
            Block::Failed => self.block = Block::Failed,
            Block::Idle => {}
        }
    }

    fn execute(&mut self, statement: &Statement) -> Result<Output, SqlError> {
        match statement {
            Statement::StartTransaction { modes, .. } => self.begin(modes),
            Statement::Commit { chain: false, .. } => self.commit(),
            Statement::Rollback {
                chain: false,
                savepoint: None,
            } => self.rollback(),
            _ if matches!(self.block, Block::Failed) => Err(SqlError::in_failed_block()),
            statement => self.in_transaction(|db, txn, notices| run(db, txn, notices, statement)),
        }
    }

    /// Runs `f` in the open block's transaction, or in a transaction of
    /// its own committed when it succeeds.
    fn in_transaction(
        &mut self,
        f: impl FnOnce(&Database, &mut Transaction, &mut Vec<String>) -> Result<Output, SqlError>,
    ) -> Result<Output, SqlError> {
        if let Block::Open(txn) = &mut self.block {
            return f(&self.db, txn, &mut self.notices);
        }
        let mut txn = self.db.begin(Isolation::ReadCommitted, Durability::Sync)?;
        match f(&self.db, &mut txn, &mut self.notices) {
            Ok(output) => {
                txn.commit()?;
                Ok(output)
            }
            Err(e) => {
                let _ = txn.rollback();
                Err(e)
            }
        }
    }

    fn begin(&mut self, modes: &[TransactionMode]) -> Result<Output, SqlError> {
        let mut isolation = Isolation::ReadCommitted;
        for mode in modes {
            match mode {
                TransactionMode::IsolationLevel(level) => {
                    isolation = match level {
                        TransactionIsolationLevel::ReadUncommitted
                        | TransactionIsolationLevel::ReadCommitted => Isolation::ReadCommitted,
                        TransactionIsolationLevel::RepeatableRead => Isolation::RepeatableRead,
                        TransactionIsolationLevel::Serializable => {
                            return Err(SqlError::unsupported("isolation level SERIALIZABLE"));
                        }
                        other => {
                            return Err(SqlError::unsupported(format!("isolation level {other}")));
                        }
                    }
                }
                other => return Err(SqlError::unsupported(format!("transaction mode {other}"))),
            }
        }
        match self.block {
            Block::Idle => {
                self.block = Block::Open(self.db.begin(isolation, Durability::Sync)?);
            }
            Block::Open(_) | Block::Failed => self
                .notices
                .push("WARNING:  there is already a transaction in progress".into()),
        }
        Ok(Output::command("BEGIN"))
    }

    fn commit(&mut self) -> Result<Output, SqlError> {
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Open(txn) => {
                txn.commit()?;
                Ok(Output::command("COMMIT"))
            }
            // PostgreSQL: COMMIT of a failed block rolls it back.
            Block::Failed => Ok(Output::command("ROLLBACK")),
            Block::Idle => {
                self.notices
                    .push("WARNING:  there is no transaction in progress".into());
                Ok(Output::command("COMMIT"))
            }
        }
    }

    fn rollback(&mut self) -> Result<Output, SqlError> {
        match std::mem::replace(&mut self.block, Block::Idle) {
            Block::Open(txn) => txn.rollback()?,
            Block::Failed => {}
            Block::Idle => self
                .notices
                .push("WARNING:  there is no transaction in progress".into()),
        }
        Ok(Output::command("ROLLBACK"))
    }
}

/// One statement inside a transaction.
fn run(
    db: &Database,
    txn: &mut Transaction,
    notices: &mut Vec<String>,
    statement: &Statement,
) -> Result<Output, SqlError> {
    match statement {
        Statement::CreateTable(create) => ddl::create_table(db, txn, notices, create),
        Statement::Drop {
            object_type,
            if_exists,
            names,
            cascade,
            ..
        } => ddl::drop(db, txn, notices, *object_type, *if_exists, names, *cascade),
        Statement::Truncate {
            table_names,
            partitions: None,
            identity: None,
            cascade: None,
            on_cluster: None,
            ..
        } => ddl::truncate(db, txn, table_names),
        Statement::AlterTable {
            name,
            if_exists: false,
            only: false,
            operations,
            location: None,
            on_cluster: None,
            ..
        } => ddl::alter_table(db, txn, name, operations),
        Statement::Insert(insert) => dml::insert(db, txn, insert),
        Statement::Query(q) => query::select(db, txn, q),
        other => Err(SqlError::unsupported(format!(
            "the statement \"{}\"",
            first_words(&other.to_string())
        ))),
    }
}

/// The first words of a statement, for an error message.
fn first_words(sql: &str) -> String {
    sql.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}
