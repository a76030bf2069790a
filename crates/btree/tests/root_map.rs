//! The map of named tree roots persists across a reopen of the database.

mod common;

use folio_btree::{BtreeError, RootMap, TreeKind};

#[test]
fn named_trees_survive_reopen() {
    // Proves trees created by name are found again, with their contents and
    // kinds, after the pool is flushed, dropped and the file reopened; that
    // names are unique; and that opening with the wrong kind is an error.
    let dir = tempfile::tempdir().unwrap();
    {
        let pool = common::open(&dir, 64, true, true);
        let roots = RootMap::open(&pool).unwrap();
        let accounts = roots.create_tree("accounts").unwrap();
        let by_branch = roots.create_multi_tree("accounts_bid").unwrap();
        for aid in 0..5_000u64 {
            accounts.insert(&common::key(aid), &[7u8; 100]).unwrap();
            by_branch.insert(&common::key(aid % 3), aid, b"").unwrap();
        }
        assert!(matches!(
            roots.create_tree("accounts"),
            Err(BtreeError::TreeExists { .. })
        ));
        pool.flush_all().unwrap();
    }
    let pool = common::open(&dir, 64, true, false);
    let roots = RootMap::open(&pool).unwrap();
    let names: Vec<_> = roots
        .list()
        .unwrap()
        .into_iter()
        .map(|e| (e.name, e.kind))
        .collect();
    assert_eq!(
        names,
        vec![
            ("accounts".to_string(), TreeKind::Unique),
            ("accounts_bid".to_string(), TreeKind::NonUnique)
        ]
    );
    let accounts = roots.open_tree("accounts").unwrap().unwrap();
    assert_eq!(accounts.verify().unwrap().entries, 5_000);
    assert_eq!(
        accounts.get(&common::key(4_321)).unwrap(),
        Some(vec![7u8; 100])
    );
    let by_branch = roots.open_multi_tree("accounts_bid").unwrap().unwrap();
    let tids: Vec<u64> = by_branch
        .scan_key(&common::key(1), folio_btree::Direction::Forward)
        .map(|r| r.unwrap().1)
        .collect();
    assert_eq!(tids, (0..5_000).filter(|a| a % 3 == 1).collect::<Vec<_>>());
    assert!(roots.open_tree("missing").unwrap().is_none());
    assert!(matches!(
        roots.open_tree("accounts_bid"),
        Err(BtreeError::WrongKind { .. })
    ));
    roots.tree().verify().unwrap();
}
