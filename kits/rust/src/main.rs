//! The example bot: a greedy climber in mountain-goats, uniformly random elsewhere.
//! `make` builds ./bot; `goatarena check-bot ./bot` checks it.

use goatarena_bot::agent::{self, Bot, End, Request, Start};
use goatarena_bot::log;
use goatarena_bot::protocol::{MountainGoatsAction, MountainGoatsDecide, MountainGoatsObservation};

/// A small seeded generator (SplitMix64): games replay exactly, no crate needed.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in 0..n (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// What one more step on mountain index `i` is worth from `step`: the mountain's points
/// when it takes a token now (the goat reaches or is on the summit), less the further the
/// goat is from the summit, nothing once the mountain's tokens are gone.
fn climb_worth(observation: &MountainGoatsObservation, step: &[i64], i: usize) -> f64 {
    if observation.supply[i] == 0 {
        return 0.0;
    }
    let points = observation.mountains[i] as f64;
    let height = observation.heights[i];
    if step[i] + 1 >= height {
        return points;
    }
    points * (step[i] + 1) as f64 / height as f64 / 2.0
}

/// The index of the move whose climbs are worth most, ties broken at random.
fn best_climb(
    observation: &MountainGoatsObservation,
    actions: &[MountainGoatsAction],
    rng: &mut SplitMix64,
) -> usize {
    let mut best = (0, -1.0);
    for (choice, action) in actions.iter().enumerate() {
        let mut step = observation.steps[observation.seat as usize].clone();
        let mut worth = rng.unit() * 0.01;
        for mountain in &action.mountain_goats_move {
            let i = observation.mountains.iter().position(|m| m == mountain).unwrap_or(0);
            worth += climb_worth(observation, &step, i);
            if step[i] < observation.heights[i] {
                step[i] += 1;
            }
        }
        if worth > best.1 {
            best = (choice, worth);
        }
    }
    best.0
}

/// Keeps per-game state: the game and a generator seeded from the referee's seed.
struct ExampleBot {
    game: String,
    rng: SplitMix64,
}

impl Bot for ExampleBot {
    fn name(&self) -> String {
        "rust-example".to_string()
    }

    fn start(&mut self, start: &Start) {
        self.game = start.game.clone();
        self.rng = SplitMix64(start.seed);
    }

    fn decide(&mut self, request: &Request) -> usize {
        if self.game == "mountain-goats" {
            match request.read::<MountainGoatsDecide>() {
                Ok(typed) => return best_climb(&typed.observation, &typed.actions, &mut self.rng),
                Err(error) => log!("cannot read the observation ({}): playing at random", error),
            }
        }
        self.rng.below(request.message.actions.len())
    }

    fn end(&mut self, end: &End) {
        log!("game over: scores {:?}, ranks {:?}", end.scores, end.ranks);
    }
}

fn main() {
    let mut bot = ExampleBot { game: String::new(), rng: SplitMix64(1) };
    if let Err(error) = agent::run(&mut bot) {
        log!("stopped: {}", error);
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::fs;
    use std::path::Path;

    fn recorded_decides() -> Vec<MountainGoatsDecide> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mountain-goats.json");
        let recorded: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
        recorded["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|line| line.as_str().unwrap())
            .filter(|line| line.starts_with(r#"{"type":"decide""#))
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    #[test]
    fn best_climb_climbs_on_recorded_turns() {
        let decides = recorded_decides();
        assert!(!decides.is_empty());
        let mut rng = SplitMix64(1);
        for typed in &decides {
            let chosen = best_climb(&typed.observation, &typed.actions, &mut rng);
            let climbs = &typed.actions[chosen].mountain_goats_move;
            assert!(!climbs.is_empty() || typed.actions.len() == 1, "decision {}", typed.decision);
        }
    }

    #[test]
    fn best_climb_takes_the_summit_token() {
        let observation: Value = serde_json::json!({
            "seat": 0, "to_act": 0, "round": 3, "dice": [5, 5, 4, 6],
            "mountains": [5, 6, 7, 8, 9, 10], "heights": [4, 4, 3, 3, 2, 2],
            "steps": [[0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0]], "supply": [10, 9, 8, 7, 6, 5],
            "tokens": [[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]], "bonus_left": [15, 12, 9, 6], "bonuses": [[], []],
            "scores": [0, 0], "ending": false
        });
        let actions: Vec<Value> = ["[]", "[5,5]", "[10]", "[6]"]
            .iter()
            .map(|m| serde_json::from_str(&format!(r#"{{"move":{},"groups":[[1]]}}"#, m)).unwrap())
            .collect();
        let mut observation: MountainGoatsObservation = serde_json::from_value(observation).unwrap();
        let actions: Vec<MountainGoatsAction> =
            actions.into_iter().map(|a| serde_json::from_value(a).unwrap()).collect();
        assert_eq!(best_climb(&observation, &actions, &mut SplitMix64(1)), 2);
        observation.supply[5] = 0;
        assert_eq!(best_climb(&observation, &actions, &mut SplitMix64(1)), 1);
    }
}
