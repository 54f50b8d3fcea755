// Command industry reports recipes and invention chances from an EVE static data export.
package main

import (
	"errors"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
)

type decryptor struct {
	name                     string
	multiplier, runs, me, te int
}

// Decryptors in output order: None first, then by name.
var decryptors = []decryptor{
	{"None", 0, 0, 0, 0},
	{"Accelerant Decryptor", 20, 1, 2, 10},
	{"Attainment Decryptor", 80, 4, -1, 4},
	{"Augmentation Decryptor", -40, 9, -2, 2},
	{"Optimized Attainment Decryptor", 90, 2, 1, -2},
	{"Optimized Augmentation Decryptor", -10, 7, 2, 0},
	{"Parity Decryptor", 50, 3, 1, -2},
	{"Process Decryptor", 10, 0, 3, 6},
	{"Symmetry Decryptor", 0, 2, 1, 8},
}

var relicQualities = []string{"Intact", "Malfunctioning", "Wrecked"}
var relicBase = map[string][2]int64{"Intact": {26, 20}, "Malfunctioning": {21, 10}, "Wrecked": {14, 3}}

func techLevel(s *Sde, typeID int) string {
	name := s.metaGroups[s.metaTypes[typeID]]
	switch {
	case strings.Contains(name, "Tech III"):
		return "Tech III"
	case strings.Contains(name, "Tech II"):
		return "Tech II"
	}
	return "Tech I"
}

func marketPath(s *Sde, t typeRow) string {
	var names []string
	id, has := t.marketGroup, t.hasMarketGrp
	for has {
		group, ok := s.market[id]
		if !ok {
			break
		}
		names = append([]string{group.name}, names...)
		id, has = group.parent, group.hasParent
	}
	if len(names) == 0 {
		return "None"
	}
	return strings.Join(names, " > ")
}

func header(s *Sde, typeID int) []string {
	t := s.types[typeID]
	group := s.groups[t.group]
	return []string{
		fmt.Sprintf("ITEM: %s (%d)", t.name, typeID),
		fmt.Sprintf("Group: %s > %s", group[0], group[1]),
		"Market Group: " + marketPath(s, t),
		"Tech Level: " + techLevel(s, typeID),
	}
}

func lookup(s *Sde, name string) (int, error) {
	id, ok := s.byName[name]
	if !ok {
		return 0, fmt.Errorf("item not found: %s", name)
	}
	return id, nil
}

func minutes(seconds int) int { return (seconds + 59) / 60 }

func foldSort(names []string) {
	sort.SliceStable(names, func(i, j int) bool { return strings.ToLower(names[i]) < strings.ToLower(names[j]) })
}

func recipe(s *Sde, name string) ([]string, error) {
	id, err := lookup(s, name)
	if err != nil {
		return nil, err
	}
	row, ok := s.productOf(id, manufacturing, reactions)
	if !ok {
		makers := s.makersOf(id, manufacturing)
		if len(makers) == 0 {
			makers = s.makersOf(id, reactions)
		}
		if len(makers) == 0 {
			return nil, fmt.Errorf("no recipe produces %s", name)
		}
		row = makers[0]
	}
	product := s.types[row.product]
	if !product.published {
		return nil, fmt.Errorf("%s makes an unpublished type", name)
	}
	volume := product.volume
	if v, ok := s.shipVolumes()[s.groups[product.group][1]]; ok {
		volume = v
	}
	activity := "Manufacturing"
	if row.activity == reactions {
		activity = "Reactions"
	}
	lines := append(header(s, row.product), "Volume: "+strconv.FormatFloat(volume, 'f', -1, 64), "", "Recipe:",
		"Activity: "+activity, fmt.Sprintf("Output Quantity: %d", row.quantity),
		fmt.Sprintf("Run Time: %d", minutes(s.times[key{row.blueprint, row.activity}])),
		"| Item | Quantity | Buildable |", "|---|---|---|")
	var materials []string
	cells := map[string]string{}
	for _, m := range s.materials[key{row.blueprint, row.activity}] {
		t, ok := s.types[m.typeID]
		if !ok || !t.published {
			continue
		}
		answer := "No"
		if s.buildable(m.typeID) {
			answer = "Yes"
		}
		materials = append(materials, t.name)
		cells[t.name] = fmt.Sprintf("| %s | %d | %s |", t.name, m.quantity, answer)
	}
	foldSort(materials)
	for _, m := range materials {
		lines = append(lines, cells[m])
	}
	return lines, nil
}

// chance is the success chance in percent, clamped to 100, rounded half up to two decimals.
func chance(base *big.Rat, science, level, multiplier int) string {
	skills := new(big.Rat).Add(big.NewRat(int64(science*level), 30), big.NewRat(int64(level), 40))
	value := new(big.Rat).Mul(base, skills.Add(skills, big.NewRat(1, 1)))
	value.Mul(value, big.NewRat(int64(100+multiplier), 100))
	if value.Cmp(big.NewRat(1, 1)) > 0 {
		value.SetInt64(1)
	}
	cents := new(big.Rat).Mul(value, big.NewRat(10000, 1))
	cents.Add(cents, big.NewRat(1, 2))
	whole := new(big.Int).Quo(cents.Num(), cents.Denom())
	return fmt.Sprintf("%d.%02d", whole.Int64()/100, whole.Int64()%100)
}

func inventionTarget(s *Sde, name string) (int, int, error) {
	id, err := lookup(s, name)
	if err != nil {
		return 0, 0, err
	}
	product := id
	if row, ok := s.productOf(id, manufacturing); ok {
		product = row.product
	}
	if techLevel(s, product) == "Tech I" {
		return 0, 0, fmt.Errorf("%s is not a Tech II or Tech III item", name)
	}
	makers := s.makersOf(product, manufacturing)
	if len(makers) == 0 {
		return 0, 0, fmt.Errorf("no blueprint manufactures %s", name)
	}
	return product, makers[0].blueprint, nil
}

// common returns the Datacores to Probabilities lines of a source and its number of science skills.
func common(s *Sde, k key) ([]string, int) {
	var cores, skills []string
	perRun := 0
	for _, m := range s.materials[k] {
		if n := s.types[m.typeID].name; strings.HasPrefix(n, "Datacore - ") {
			cores = append(cores, n)
			perRun = m.quantity
		}
	}
	science := 0
	for _, id := range s.skills[k] {
		n := s.types[id].name
		skills = append(skills, n)
		if !strings.Contains(n, "Encryption") {
			science++
		}
	}
	foldSort(cores)
	foldSort(skills)
	return []string{
		"Datacores: " + strings.Join(cores, ", "),
		fmt.Sprintf("Required Per Run: %d", perRun),
		"Skills: " + strings.Join(skills, ", "),
		fmt.Sprintf("Time: %d", minutes(s.times[k])),
		"Probabilities:",
	}, science
}

func quality(name string) string {
	for _, word := range strings.Fields(name) {
		if _, ok := relicBase[word]; ok {
			return word
		}
	}
	return ""
}

func rank(name string) int {
	for i, q := range relicQualities {
		if q == quality(name) {
			return i
		}
	}
	return len(relicQualities)
}

func techThree(s *Sde, sources []productRow, level int) ([]string, error) {
	var relics []productRow
	for _, row := range sources {
		if quality(s.types[row.blueprint].name) != "" {
			relics = append(relics, row)
		}
	}
	if len(relics) == 0 {
		return nil, errors.New("no relic invents this item")
	}
	sort.SliceStable(relics, func(i, j int) bool {
		a, b := s.types[relics[i].blueprint].name, s.types[relics[j].blueprint].name
		if rank(a) != rank(b) {
			return rank(a) < rank(b)
		}
		return strings.ToLower(a) < strings.ToLower(b)
	})
	lines, science := common(s, key{relics[0].blueprint, relics[0].activity})
	lines = append(lines, "| Invented From | Decryptor | Probability | Runs | ME | TE |", "|---|---|---|---|---|---|")
	for _, relic := range relics {
		name := s.types[relic.blueprint].name
		base := relicBase[quality(name)]
		for _, d := range decryptors {
			lines = append(lines, fmt.Sprintf("| %s | %s | %s | %d | %d | %d |", name, d.name,
				chance(big.NewRat(base[0], 100), science, level, d.multiplier), int(base[1])+d.runs, 2+d.me, 4+d.te))
		}
	}
	return lines, nil
}

func inventionReport(s *Sde, name string, level int) ([]string, error) {
	product, blueprint, err := inventionTarget(s, name)
	if err != nil {
		return nil, err
	}
	sources := s.makersOf(blueprint, invention, reverseEngineering)
	if len(sources) == 0 {
		return nil, fmt.Errorf("nothing invents %s", name)
	}
	lines := append(header(s, product), "", "Invention:")
	if techLevel(s, product) == "Tech III" {
		rest, err := techThree(s, sources, level)
		return append(lines, rest...), err
	}
	source := sources[0]
	base, ok := s.probabilities[[3]int{source.blueprint, source.activity, blueprint}]
	if !ok {
		return nil, fmt.Errorf("no invention probability for %s", name)
	}
	lines = append(lines, fmt.Sprintf("Base: %s (%d)", s.types[source.blueprint].name, source.blueprint))
	block, science := common(s, key{source.blueprint, source.activity})
	lines = append(append(lines, block...), "| Decryptor | Probability | Runs | ME | TE |", "|---|---|---|---|---|")
	for _, d := range decryptors {
		lines = append(lines, fmt.Sprintf("| %s | %s | %d | %d | %d |", d.name,
			chance(base, science, level, d.multiplier), source.quantity+d.runs, 2+d.me, 4+d.te))
	}
	return lines, nil
}

type options struct {
	command, name, sde string
	skill              int
}

func parseArgs(args []string) (options, error) {
	opts := options{skill: 5}
	var positional []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--sde", "--skill":
			if i+1 >= len(args) {
				return opts, fmt.Errorf("%s needs a value", args[i])
			}
			if args[i] == "--sde" {
				opts.sde = args[i+1]
			} else {
				level, err := strconv.Atoi(args[i+1])
				if err != nil || level < 1 || level > 5 {
					return opts, errors.New("skill level must be an integer from 1 to 5")
				}
				opts.skill = level
			}
			i++
		default:
			positional = append(positional, args[i])
		}
	}
	if len(positional) != 2 || opts.sde == "" || (positional[0] != "recipe" && positional[0] != "invention") {
		return opts, errors.New("usage: industry recipe|invention <name> --sde <directory> [--skill <1-5>]")
	}
	opts.command, opts.name = positional[0], positional[1]
	return opts, nil
}

func run(args []string) ([]string, error) {
	opts, err := parseArgs(args)
	if err != nil {
		return nil, err
	}
	s, err := loadSde(opts.sde)
	if err != nil {
		return nil, err
	}
	if opts.command == "recipe" {
		return recipe(s, opts.name)
	}
	return inventionReport(s, opts.name, opts.skill)
}

func main() {
	lines, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "ERROR:", err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(lines, "\n"))
}
