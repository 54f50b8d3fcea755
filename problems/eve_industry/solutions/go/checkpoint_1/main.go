// Command industry reports recipes from an EVE static data export.
package main

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

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

type options struct {
	command, name, sde string
}

func parseArgs(args []string) (options, error) {
	opts := options{}
	var positional []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--sde":
			if i+1 >= len(args) {
				return opts, errors.New("--sde needs a value")
			}
			opts.sde = args[i+1]
			i++
		default:
			positional = append(positional, args[i])
		}
	}
	if len(positional) != 2 || opts.sde == "" || positional[0] != "recipe" {
		return opts, errors.New("usage: industry recipe <name> --sde <directory>")
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
	return recipe(s, opts.name)
}

func main() {
	lines, err := run(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "ERROR:", err)
		os.Exit(1)
	}
	fmt.Println(strings.Join(lines, "\n"))
}
