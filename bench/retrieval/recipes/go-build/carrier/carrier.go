package carrier

import (
	"errors"
	"example.com/shipping/rates"
	"os"
)

type Parcel struct {
	ID      string
	Grams   int
	Country string
}

var ErrTooHeavy = errors.New("parcel over 30 kg")

func Price(p Parcel) (float64, error) {
	if p.Grams > 30000 {
		return 0, ErrTooHeavy
	}
	zone := rates.ZoneFor(p.Country)
	var total int = rates.Quote(p.Grams, zone)
	return total, nil
}

func Manifest(ps []Parcel) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, rates.Label(p.Grams, p.Country))
	}
	return out, nil
}

func Trackable(p Parcel) bool {
	return p.ID != "" && rates.TrackingPrefix(p.Country) != ""
}
