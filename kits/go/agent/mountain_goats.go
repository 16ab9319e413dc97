package agent

import "encoding/json"

// MountainGoatsObservation is what a seat sees in mountain-goats (docs/games.md).
type MountainGoatsObservation struct {
	Seat      int     `json:"seat"`
	ToAct     int     `json:"to_act"`
	Round     int     `json:"round"`
	Dice      []int   `json:"dice"`
	Mountains []int   `json:"mountains"`
	Heights   []int   `json:"heights"`
	Steps     [][]int `json:"steps"`
	Supply    []int   `json:"supply"`
	Tokens    [][]int `json:"tokens"`
	BonusLeft []int   `json:"bonus_left"`
	Bonuses   [][]int `json:"bonuses"`
	Scores    []int   `json:"scores"`
	Ending    bool    `json:"ending"`
}

// MountainGoatsAction is one mountain-goats choice: the mountains to climb, and the
// grouping of the dice that climbs them.
type MountainGoatsAction struct {
	Move   []int   `json:"move"`
	Groups [][]int `json:"groups"`
}

// MountainGoats decodes the request's observation and actions as mountain-goats ones.
func (d *Decide) MountainGoats() (MountainGoatsObservation, []MountainGoatsAction, error) {
	var observation MountainGoatsObservation
	if err := json.Unmarshal(d.Observation, &observation); err != nil {
		return observation, nil, err
	}
	actions := make([]MountainGoatsAction, len(d.Actions))
	for i, raw := range d.Actions {
		if err := json.Unmarshal(raw, &actions[i]); err != nil {
			return observation, nil, err
		}
	}
	return observation, actions, nil
}
