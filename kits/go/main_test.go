package main

import (
	"encoding/json"
	"math/rand"
	"os"
	"testing"

	"goatarena.invalid/bot/agent"
	"goatarena.invalid/bot/protocol"
)

// recordedRequests reads the decides of the recorded mountain-goats game.
func recordedRequests(t *testing.T) []*agent.Decide {
	t.Helper()
	data, err := os.ReadFile("fixtures/mountain-goats.json")
	if err != nil {
		t.Fatal(err)
	}
	var recorded struct {
		Lines []string `json:"lines"`
	}
	if err := json.Unmarshal(data, &recorded); err != nil {
		t.Fatal(err)
	}
	var requests []*agent.Decide
	for _, text := range recorded.Lines {
		line := []byte(text)
		request := agent.Decide{Line: line}
		if json.Unmarshal(line, &request.Decide) == nil && request.Actions != nil {
			requests = append(requests, &request)
		}
	}
	return requests
}

func TestBestClimbIsWorthMostOnRecordedTurns(t *testing.T) {
	requests := recordedRequests(t)
	if len(requests) == 0 {
		t.Fatal("no decide in the recorded game")
	}
	rng := rand.New(rand.NewSource(1))
	for _, request := range requests {
		var typed protocol.MountainGoatsDecide
		if err := request.Read(&typed); err != nil {
			t.Fatal(err)
		}
		actions := typed.Actions
		chosen := bestClimb(typed.Observation, actions, rng)
		if len(actions[chosen].Move) == 0 && len(actions) > 1 {
			t.Fatalf("decision %d: climbed nothing though %d moves climb", request.Decision, len(actions)-1)
		}
	}
}

func TestBestClimbTakesTheSummitToken(t *testing.T) {
	observation := protocol.MountainGoatsObservation{
		Seat: 0, Mountains: []int64{5, 6, 7, 8, 9, 10}, Heights: []int64{4, 4, 3, 3, 2, 2},
		Steps:  [][]int64{{0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0}},
		Supply: []int64{10, 9, 8, 7, 6, 5},
	}
	actions := []protocol.MountainGoatsAction{{Move: []int64{}}, {Move: []int64{5, 5}}, {Move: []int64{10}}, {Move: []int64{6}}}
	if chosen := bestClimb(observation, actions, rand.New(rand.NewSource(1))); chosen != 2 {
		t.Fatalf("chose %v, not the climb to 10's summit", actions[chosen].Move)
	}
	observation.Supply[5] = 0
	if chosen := bestClimb(observation, actions, rand.New(rand.NewSource(1))); chosen != 1 {
		t.Fatalf("with 10's tokens gone chose %v, not 5 twice", actions[chosen].Move)
	}
}
