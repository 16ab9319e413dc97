package main

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"testing"

	"goatarena.invalid/bot/agent"
)

// recordedRequests reads the decides of the recorded mountain-goats game.
func recordedRequests(t *testing.T) []*agent.Decide {
	t.Helper()
	data, err := os.ReadFile("testdata/mountain-goats.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var requests []*agent.Decide
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var request agent.Decide
		if json.Unmarshal(line, &request) == nil && request.Actions != nil {
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
		observation, actions, err := request.MountainGoats()
		if err != nil {
			t.Fatal(err)
		}
		chosen := bestClimb(observation, actions, rng)
		if len(actions[chosen].Move) == 0 && len(actions) > 1 {
			t.Fatalf("decision %d: climbed nothing though %d moves climb", request.Decision, len(actions)-1)
		}
	}
}

func TestBestClimbTakesTheSummitToken(t *testing.T) {
	observation := agent.MountainGoatsObservation{
		Seat: 0, Mountains: []int{5, 6, 7, 8, 9, 10}, Heights: []int{4, 4, 3, 3, 2, 2},
		Steps:  [][]int{{0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0}},
		Supply: []int{10, 9, 8, 7, 6, 5},
	}
	actions := []agent.MountainGoatsAction{{Move: []int{}}, {Move: []int{5, 5}}, {Move: []int{10}}, {Move: []int{6}}}
	if chosen := bestClimb(observation, actions, rand.New(rand.NewSource(1))); chosen != 2 {
		t.Fatalf("chose %v, not the climb to 10's summit", actions[chosen].Move)
	}
	observation.Supply[5] = 0
	if chosen := bestClimb(observation, actions, rand.New(rand.NewSource(1))); chosen != 1 {
		t.Fatalf("with 10's tokens gone chose %v, not 5 twice", actions[chosen].Move)
	}
}
