package seeddata

import (
	"slices"
	"strings"
	"testing"
)

// irishTaxChangePoints are the families' change points, each with the value
// its source gives for that date.
func irishTaxChangePoints() []struct {
	series, date string
	want         float64
} {
	const (
		standard   = "TAX:IE:VAT:RATE:STANDARD"
		restaurant = "TAX:IE:VAT:RATE:HOSPITALITY_RESTAURANTS"
		hotel      = "TAX:IE:VAT:RATE:HOSPITALITY_ACCOMMODATION"
		hair       = "TAX:IE:VAT:RATE:HAIRDRESSING"
		energy     = "TAX:IE:VAT:RATE:ENERGY"
		auto       = "TAX:IE:CARBON_TAX:RATE:AUTO_FUELS"
		other      = "TAX:IE:CARBON_TAX:RATE:OTHER_FUELS"
		above1500k = "TAX:IE:STAMP_DUTY:RATE:RESIDENTIAL_ABOVE_1500K"
		bulk       = "TAX:IE:STAMP_DUTY:RATE:BULK_RESIDENTIAL"
	)
	return []struct {
		series, date string
		want         float64
	}{
		{standard, "2020-08-31", 23},
		{standard, "2020-09-01", 21},
		{standard, "2021-02-28", 21},
		{standard, "2021-03-01", 23},
		{restaurant, "2020-10-31", 13.5},
		{restaurant, "2020-11-01", 9},
		{restaurant, "2026-06-30", 13.5},
		{restaurant, "2026-07-01", 9},
		{hair, "2026-07-01", 9},
		{hotel, "2022-07-01", 9},
		{hotel, "2026-07-01", 13.5},
		{energy, "2022-04-30", 13.5},
		{energy, "2025-05-01", 9},
		{energy, "2026-11-28", 9},
		{auto, "2020-01-01", 26},
		{auto, "2024-10-08", 56},
		{auto, "2024-10-09", 63.5},
		{auto, "2025-10-08", 71},
		{other, "2020-01-01", 20},
		{other, "2025-05-01", 63.5},
		{other, "2026-05-01", 71},
		{"TAX:IE:VRT:RATE:CO2_ABOVE_225G", "2020-06-01", 36},
		{"TAX:IE:VRT:RATE:CO2_155_TO_170G", "2020-12-31", 27},
		{"TAX:IE:VRT:RATE:CO2_155_TO_170G", "2021-01-01", 26},
		{"TAX:IE:VRT:RATE:CO2_155_TO_170G", "2022-01-01", 30},
		{"TAX:IE:VRT:RATE:CO2_ABOVE_190G", "2021-06-01", 37},
		{"TAX:IE:VRT:RATE:CO2_ABOVE_190G", "2022-01-01", 41},
		{"TAX:IE:VRT:RATE:NOX_0_TO_60MG", "2020-06-01", 5},
		{"TAX:IE:VRT:RATE:NOX_0_TO_40MG", "2021-01-01", 5},
		{"TAX:IE:VRT:RATE:NOX_ABOVE_80MG", "2026-11-28", 25},
		{above1500k, "2024-10-01", 2},
		{above1500k, "2024-10-02", 6},
		{bulk, "2024-10-01", 10},
		{bulk, "2024-10-02", 15},
		{"TAX:IE:CAT:THRESHOLD:SMALL_GIFT_EXEMPTION", "2026-11-28", 3000},
	}
}

// Each change date gets the value its source gives for it, and exactly one.
func TestIrishTaxFamiliesOnChangeDates(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range irishTaxChangePoints() {
		got, n := valueOn(ds, c.series, c.date)
		if n != 1 || got != c.want {
			t.Errorf("%s on %s: %v (%d values valid), want %v", c.series, c.date, got, n, c.want)
		}
	}
	// Bands of a table that was replaced hold no value once it is gone.
	for series, date := range map[string]string{
		"TAX:IE:VRT:RATE:CO2_0_TO_80G":  "2021-01-01",
		"TAX:IE:VRT:RATE:NOX_0_TO_60MG": "2021-01-01",
		"TAX:IE:VRT:RATE:CO2_0_TO_50G":  "2020-12-31",
	} {
		if got, n := valueOn(ds, series, date); n != 0 {
			t.Errorf("%s on %s: %v, want no value", series, date, got)
		}
	}
}

// On any date the category A CO2 bands in force tile the whole range from
// 0 g/km upwards: no hole, no overlap, and one open top band.
func TestVRTCO2BandsTileTheRange(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, date := range []string{"2020-06-01", "2021-06-01", "2022-01-01", "2026-11-28"} {
		type band struct{ lo, hi float64 }
		var bands []band
		open := 0
		for _, n := range ds.Nodes {
			if !strings.HasPrefix(n.Series, "TAX:IE:VRT:RATE:CO2_") ||
				(n.ValidFrom != "" && n.ValidFrom > date) || (n.ValidTo != "" && n.ValidTo < date) {
				continue
			}
			lo, _ := n.Properties["lowerAmount"].(float64)
			hi, ok := n.Properties["upperAmount"].(float64)
			if !ok {
				open++
				hi = 1e9
			}
			bands = append(bands, band{lo, hi})
		}
		slices.SortFunc(bands, func(a, b band) int { return int(a.lo - b.lo) })
		if len(bands) == 0 || bands[0].lo != 0 || open != 1 || bands[len(bands)-1].hi != 1e9 {
			t.Errorf("%s: bands %v do not start at 0 and end in one open band", date, bands)
			continue
		}
		for i := 1; i < len(bands); i++ {
			if bands[i].lo != bands[i-1].hi {
				t.Errorf("%s: band from %v does not start where %v ends", date, bands[i].lo, bands[i-1])
			}
		}
	}
}
