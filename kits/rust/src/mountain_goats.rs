//! Mountain Goats as a bot sees it (docs/games.md): the observation and the actions.

use serde::Deserialize;
use serde_json::Value;

/// What a seat sees in mountain-goats.
#[derive(Debug, Clone, Deserialize)]
pub struct MountainGoatsObservation {
    pub seat: usize,
    pub to_act: usize,
    pub round: u32,
    pub dice: Vec<u32>,
    pub mountains: Vec<u32>,
    pub heights: Vec<u32>,
    pub steps: Vec<Vec<u32>>,
    pub supply: Vec<u32>,
    pub tokens: Vec<Vec<u32>>,
    pub bonus_left: Vec<u32>,
    pub bonuses: Vec<Vec<u32>>,
    pub scores: Vec<i64>,
    pub ending: bool,
}

/// One choice: the mountains to climb and the grouping of the dice that climbs them.
#[derive(Debug, Clone, Deserialize)]
pub struct MountainGoatsAction {
    pub r#move: Vec<u32>,
    pub groups: Vec<Vec<u32>>,
}

/// The request's observation and actions read as mountain-goats ones.
pub fn read(
    observation: &Value,
    actions: &[Value],
) -> serde_json::Result<(MountainGoatsObservation, Vec<MountainGoatsAction>)> {
    let observation = MountainGoatsObservation::deserialize(observation)?;
    let actions = actions
        .iter()
        .map(MountainGoatsAction::deserialize)
        .collect::<serde_json::Result<Vec<_>>>()?;
    Ok((observation, actions))
}
