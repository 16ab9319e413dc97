// The example bot: a greedy climber in mountain-goats, uniformly random elsewhere.
//
// Build with `make`, then `./bot` is its command:
//
//	goatarena check-bot ./bot
//	goatarena play mountain-goats --bot ./bot --bot builtin:random
package main

import (
	"math/rand"
	"os"

	"goatarena.invalid/bot/agent"
	"goatarena.invalid/bot/protocol"
)

// exampleBot keeps per-game state: the game and a generator seeded from the referee.
type exampleBot struct {
	game string
	rng  *rand.Rand
}

func (b *exampleBot) Name() string { return "go-example" }

func (b *exampleBot) Start(start *protocol.Start) {
	b.game = start.Game
	// The seed is a uint64; math/rand takes its bits as an int64.
	b.rng = rand.New(rand.NewSource(int64(start.Seed)))
}

func (b *exampleBot) Decide(request *agent.Decide) int {
	if b.rng == nil {
		b.rng = rand.New(rand.NewSource(1))
	}
	if b.game == "mountain-goats" {
		var typed protocol.MountainGoatsDecide
		err := request.Read(&typed)
		if err == nil {
			return bestClimb(typed.Observation, typed.Actions, b.rng)
		}
		agent.Log("cannot read the observation (%v): playing at random", err)
	}
	return b.rng.Intn(len(request.Actions))
}

func (b *exampleBot) End(end *protocol.End) {
	agent.Log("game over: scores %v, ranks %v", end.Scores, end.Ranks)
}

// climbWorth is what climbing one step on mountain index i is worth to the seat: the
// mountain's points when the climb takes a token now (the goat is on the summit or
// reaches it), less the further the goat is from it, nothing once the tokens are gone.
func climbWorth(observation protocol.MountainGoatsObservation, step []int64, i int) float64 {
	if observation.Supply[i] == 0 {
		return 0
	}
	points := float64(observation.Mountains[i])
	height := observation.Heights[i]
	if step[i] >= height-1 {
		return points
	}
	return points * float64(step[i]+1) / float64(height) / 2
}

// bestClimb picks the move whose climbs are worth most (ties broken at random).
func bestClimb(observation protocol.MountainGoatsObservation, actions []protocol.MountainGoatsAction, rng *rand.Rand) int {
	index := map[int64]int{}
	for i, mountain := range observation.Mountains {
		index[mountain] = i
	}
	best, bestWorth := 0, -1.0
	for choice, action := range actions {
		step := append([]int64(nil), observation.Steps[observation.Seat]...)
		worth := rng.Float64() * 0.01
		for _, mountain := range action.Move {
			i := index[mountain]
			worth += climbWorth(observation, step, i)
			if step[i] < observation.Heights[i] {
				step[i]++
			}
		}
		if worth > bestWorth {
			best, bestWorth = choice, worth
		}
	}
	return best
}

func main() {
	if err := agent.Run(&exampleBot{}); err != nil {
		agent.Log("stopped: %v", err)
		os.Exit(1)
	}
}
