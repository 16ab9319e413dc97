//! A goatarena bot's building blocks: the protocol loop ([`agent`]) and the types of
//! every message and of each game's observation and actions ([`protocol`], generated from
//! the schema by kits/generate.py).

pub mod agent;
pub mod protocol;
