package rates

import (
	"fmt"
	"strings"
)

type Zone int

const (
	Domestic Zone = iota
	Europe
	Overseas
)

func ZoneFor(country string) Zone {
	switch strings.ToUpper(country) {
	case "US":
		return Domestic
	case "DE", "FR", "NL":
		return Europe
	}
	return Overseas
}

func Quote(weightGrams int, zone Zone) float64 {
	base := map[Zone]float64{Domestic: 4.5, Europe: 9.0, Overseas: 16.0}[zone]
	return base + float64(weightGrams)/1000*perKg(zone)
}

func perKg(z Zone) float64 {
	return []float64{1.2, 2.5, 4.75}[z]
}

func Label(weightGrams int, country string) string {
	return fmt.Sprintf("%dg to %s: %.2f", weightGrams, country, Quote(weightGrams, ZoneFor(country)))
}
