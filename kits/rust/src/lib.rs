//! A goatarena bot's building blocks: the protocol loop ([`agent`]) and each game's typed
//! observation and actions ([`mountain_goats`]).

pub mod agent;
pub mod mountain_goats;
