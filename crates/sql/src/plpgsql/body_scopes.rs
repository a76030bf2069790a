//! The variables a PL/pgSQL body's statements see when the body is
//! compiled, before it runs (CREATE FUNCTION's validator, a DO block):
//! the routine's parameters (by name and as `$n`), its OUT columns,
//! `FOUND`, a trigger's `NEW`, `OLD` and `TG_*` variables, then each
//! block's DECLAREs (an exception handler sees its block's) and an
//! integer FOR's counter inside its loop, innermost last. An `ALIAS FOR`
//! is the variable it names.
//!
//! This is the one owner of those scope rules for the checks made
//! before a run (`extra_checks::shadowed`, `scalar_targets`); a running
//! body resolves its names through `exec::Runner`'s variables, which
//! are declared in the same order.

use super::parse::{Block, Decl, DeclType, LoopKind, Stmt};
use crate::error::SqlError;
use folio_catalog::FunctionDef;

/// Where a variable came from.
#[derive(Debug, Clone, Copy)]
pub enum Origin<'b> {
    /// A parameter or an OUT column, of this type oid and typmod.
    Parameter(u32, i32),
    /// A DECLARE of this type.
    Declared(&'b DeclType),
    /// An integer FOR loop's counter.
    Counter,
    /// `FOUND` or a trigger's `TG_*` variable.
    Special,
    /// A trigger's `NEW` or `OLD` row.
    TriggerRow,
}

/// A variable in view.
#[derive(Debug, Clone)]
pub struct Var<'b> {
    pub name: String,
    pub origin: Origin<'b>,
}

/// The scopes in view, innermost last.
pub type Scopes<'b> = Vec<Vec<Var<'b>>>;

/// The names a trigger function's body has before its own (besides
/// `NEW` and `OLD`).
const TRIGGER_VARIABLES: &[&str] = &[
    "tg_name",
    "tg_when",
    "tg_level",
    "tg_op",
    "tg_relid",
    "tg_relname",
    "tg_table_name",
    "tg_table_schema",
    "tg_nargs",
    "tg_argv",
];

/// What a check does at each declaration and statement; the first
/// error ends the walk.
pub trait Visitor<'b> {
    /// `decl` is about to be declared: `enclosing` are the scopes around
    /// its block, `own` the block's earlier declarations.
    fn declare(
        &mut self,
        _enclosing: &Scopes<'b>,
        _own: &[Var<'b>],
        _decl: &'b Decl,
    ) -> Result<(), SqlError> {
        Ok(())
    }

    /// `stmt`, with `scopes` in view (a FOR's counter is in view of its
    /// body's statements, not of the FOR).
    fn statement(&mut self, _scopes: &Scopes<'b>, _stmt: &'b Stmt) -> Result<(), SqlError> {
        Ok(())
    }
}

/// Walks routine `def`'s body `block` (a DO block's `def` is a `void`
/// function of no arguments) with `visitor`.
pub fn walk<'b>(
    def: &FunctionDef,
    block: &'b Block,
    visitor: &mut impl Visitor<'b>,
) -> Result<(), SqlError> {
    let mut outer = Vec::new();
    for (i, (name, oid, typmod)) in def.args.iter().enumerate() {
        let origin = Origin::Parameter(*oid, *typmod);
        outer.push(Var {
            name: format!("${}", i + 1),
            origin,
        });
        if !name.is_empty() {
            outer.push(Var {
                name: name.clone(),
                origin,
            });
        }
    }
    if super::set_returning::has_out(def) {
        for (name, oid, typmod) in def.columns.iter().filter(|c| !c.0.is_empty()) {
            outer.push(Var {
                name: name.clone(),
                origin: Origin::Parameter(*oid, *typmod),
            });
        }
    }
    let special = |name: &str, origin| Var {
        name: name.to_string(),
        origin,
    };
    outer.push(special("found", Origin::Special));
    if def.result.0 == crate::sql_functions::TRIGGER {
        outer.push(special("new", Origin::TriggerRow));
        outer.push(special("old", Origin::TriggerRow));
        outer.extend(
            TRIGGER_VARIABLES
                .iter()
                .map(|n| special(n, Origin::Special)),
        );
    }
    block_walk(block, &mut vec![outer], visitor)
}

/// The variable `name` resolves to in `scopes` (innermost first).
pub fn resolve<'s, 'b>(scopes: &'s Scopes<'b>, name: &str) -> Option<&'s Var<'b>> {
    (scopes.iter().rev().flat_map(|s| s.iter().rev())).find(|v| v.name == name)
}

fn block_walk<'b>(
    block: &'b Block,
    scopes: &mut Scopes<'b>,
    visitor: &mut impl Visitor<'b>,
) -> Result<(), SqlError> {
    let mut own: Vec<Var<'b>> = Vec::new();
    for decl in &block.decls {
        visitor.declare(scopes, &own, decl)?;
        let origin = match &decl.ty {
            DeclType::Alias(target) => {
                scopes.push(own.clone());
                let aliased = resolve(scopes, target).map(|v| v.origin);
                scopes.pop();
                aliased.unwrap_or(Origin::Declared(&decl.ty))
            }
            ty => Origin::Declared(ty),
        };
        own.push(Var {
            name: decl.name.clone(),
            origin,
        });
    }
    scopes.push(own);
    let mut result = stmts_walk(&block.body, scopes, visitor);
    for handler in &block.handlers {
        result = result.and_then(|()| stmts_walk(&handler.body, scopes, visitor));
    }
    scopes.pop();
    result
}

fn stmts_walk<'b>(
    stmts: &'b [Stmt],
    scopes: &mut Scopes<'b>,
    visitor: &mut impl Visitor<'b>,
) -> Result<(), SqlError> {
    for stmt in stmts {
        visitor.statement(scopes, stmt)?;
        for body in stmt.branches() {
            stmts_walk(body, scopes, visitor)?;
        }
        match stmt {
            Stmt::Loop {
                kind: LoopKind::Range { var, .. },
                body,
                ..
            } => {
                scopes.push(vec![Var {
                    name: var.clone(),
                    origin: Origin::Counter,
                }]);
                let result = stmts_walk(body, scopes, visitor);
                scopes.pop();
                result?;
            }
            Stmt::Loop { body, .. } => stmts_walk(body, scopes, visitor)?,
            Stmt::Block(b) => block_walk(b, scopes, visitor)?,
            _ => {}
        }
    }
    Ok(())
}
