//! Exception condition names (PostgreSQL's Appendix A) and their
//! SQLSTATEs, and what a handler's condition catches: a name or a code
//! of a class (`xx000`) catches every code of that class; `others`
//! catches all but query cancellation (57014), as in PostgreSQL.

use super::parse::Condition;

/// The conditions a body may name, with their codes.
const NAMES: &[(&str, &str)] = &[
    ("successful_completion", "00000"),
    ("warning", "01000"),
    ("no_data", "02000"),
    ("sql_statement_not_yet_complete", "03000"),
    ("connection_exception", "08000"),
    ("feature_not_supported", "0A000"),
    ("invalid_transaction_initiation", "0B000"),
    ("case_not_found", "20000"),
    ("cardinality_violation", "21000"),
    ("data_exception", "22000"),
    ("string_data_right_truncation", "22001"),
    ("null_value_no_indicator_parameter", "22002"),
    ("numeric_value_out_of_range", "22003"),
    ("null_value_not_allowed", "22004"),
    ("error_in_assignment", "22005"),
    ("invalid_datetime_format", "22007"),
    ("datetime_field_overflow", "22008"),
    ("invalid_time_zone_displacement_value", "22009"),
    ("character_not_in_repertoire", "22021"),
    ("indicator_overflow", "22022"),
    ("invalid_parameter_value", "22023"),
    ("division_by_zero", "22012"),
    ("invalid_escape_character", "22019"),
    ("invalid_regular_expression", "2201B"),
    ("invalid_text_representation", "22P02"),
    ("invalid_binary_representation", "22P03"),
    ("untranslatable_character", "22P05"),
    ("array_subscript_error", "2202E"),
    ("invalid_json_text", "22032"),
    ("integrity_constraint_violation", "23000"),
    ("restrict_violation", "23001"),
    ("not_null_violation", "23502"),
    ("foreign_key_violation", "23503"),
    ("unique_violation", "23505"),
    ("check_violation", "23514"),
    ("exclusion_violation", "23P01"),
    ("invalid_cursor_state", "24000"),
    ("invalid_transaction_state", "25000"),
    ("active_sql_transaction", "25001"),
    ("read_only_sql_transaction", "25006"),
    ("in_failed_sql_transaction", "25P02"),
    ("invalid_authorization_specification", "28000"),
    ("invalid_sql_statement_name", "26000"),
    ("dependent_objects_still_exist", "2BP01"),
    ("invalid_transaction_termination", "2D000"),
    ("sql_routine_exception", "2F000"),
    ("invalid_cursor_name", "34000"),
    ("invalid_schema_name", "3F000"),
    ("transaction_rollback", "40000"),
    ("serialization_failure", "40001"),
    ("deadlock_detected", "40P01"),
    ("syntax_error_or_access_rule_violation", "42000"),
    ("syntax_error", "42601"),
    ("insufficient_privilege", "42501"),
    ("cannot_coerce", "42846"),
    ("grouping_error", "42803"),
    ("datatype_mismatch", "42804"),
    ("wrong_object_type", "42809"),
    ("undefined_column", "42703"),
    ("undefined_function", "42883"),
    ("undefined_table", "42P01"),
    ("undefined_parameter", "42P02"),
    ("undefined_object", "42704"),
    ("duplicate_column", "42701"),
    ("duplicate_database", "42P04"),
    ("duplicate_function", "42723"),
    ("duplicate_prepared_statement", "42P05"),
    ("duplicate_schema", "42P06"),
    ("duplicate_table", "42P07"),
    ("duplicate_alias", "42712"),
    ("duplicate_object", "42710"),
    ("ambiguous_column", "42702"),
    ("ambiguous_function", "42725"),
    ("invalid_column_reference", "42P10"),
    ("invalid_column_definition", "42611"),
    ("invalid_function_definition", "42P13"),
    ("invalid_schema_definition", "42P15"),
    ("invalid_table_definition", "42P16"),
    ("invalid_object_definition", "42P17"),
    ("indeterminate_datatype", "42P18"),
    ("invalid_name", "42602"),
    ("name_too_long", "42622"),
    ("reserved_name", "42939"),
    ("with_check_option_violation", "44000"),
    ("insufficient_resources", "53000"),
    ("out_of_memory", "53200"),
    ("program_limit_exceeded", "54000"),
    ("statement_too_complex", "54001"),
    ("object_not_in_prerequisite_state", "55000"),
    ("object_in_use", "55006"),
    ("lock_not_available", "55P03"),
    ("operator_intervention", "57000"),
    ("query_canceled", "57014"),
    ("system_error", "58000"),
    ("plpgsql_error", "P0000"),
    ("raise_exception", "P0001"),
    ("no_data_found", "P0002"),
    ("too_many_rows", "P0003"),
    ("assert_failure", "P0004"),
    ("internal_error", "XX000"),
    ("data_corrupted", "XX001"),
    ("index_corrupted", "XX002"),
];

/// The SQLSTATE of condition `name`.
pub fn code_of(name: &str) -> Option<&'static str> {
    NAMES.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

/// Whether `condition` catches an error of SQLSTATE `code`.
pub fn catches(condition: &Condition, code: &str) -> bool {
    let wanted = match condition {
        // (Not a cancel, nor an ASSERT's failure: PostgreSQL's.)
        Condition::Name(n) if n == "others" => return !matches!(code, "57014" | "P0004"),
        Condition::Name(n) => match code_of(n) {
            Some(c) => c,
            None => return false,
        },
        Condition::Code(c) => c.as_str(),
    };
    // A class's code (`23000`) catches the class.
    if wanted.ends_with("000") {
        code.get(..2) == wanted.get(..2)
    } else {
        code == wanted
    }
}

/// `code` as a `'static` SQLSTATE (errors carry static codes): a known
/// one's, else one kept for the process (a body's own codes are few).
pub fn static_code(code: &str) -> &'static str {
    if let Some((_, c)) = NAMES.iter().find(|(_, c)| *c == code) {
        return c;
    }
    static KEPT: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = kept.iter().find(|c| **c == code) {
        return c;
    }
    let leaked: &'static str = Box::leak(code.to_string().into_boxed_str());
    kept.push(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    //! Names map to codes; a class code catches its class.
    use super::*;

    #[test]
    fn names_and_classes() {
        assert_eq!(code_of("unique_violation"), Some("23505"));
        assert!(catches(
            &Condition::Name("unique_violation".into()),
            "23505"
        ));
        assert!(catches(
            &Condition::Name("integrity_constraint_violation".into()),
            "23503"
        ));
        assert!(!catches(
            &Condition::Name("division_by_zero".into()),
            "23505"
        ));
        assert!(catches(&Condition::Name("others".into()), "XX000"));
        assert!(!catches(&Condition::Name("others".into()), "57014"));
        assert!(!catches(&Condition::Name("others".into()), "P0004"));
        assert!(catches(&Condition::Code("P0001".into()), "P0001"));
        assert_eq!(static_code("U0001"), static_code("U0001"));
    }
}
