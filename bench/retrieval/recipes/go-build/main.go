package main

import (
	"fmt"
	"example.com/shipping/carrier"
)

func main() {
	ps := []carrier.Parcel{{ID: "P1", Grams: 1200, Country: "DE"}, {ID: "P2", Grams: 400, Country: "US"}}
	for _, l := range carrier.Manifest(ps) {
		fmt.Println(l)
	}
}
