package main

import (
	"compress/bzip2"
	"encoding/csv"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const (
	manufacturing      = 1
	reverseEngineering = 7
	invention          = 8
	reactions          = 11
)

type key struct{ typeID, activity int }

type productRow struct{ blueprint, activity, product, quantity int }

type amount struct{ typeID, quantity int }

type typeRow struct {
	name         string
	group        int
	volume       float64
	published    bool
	marketGroup  int
	hasMarketGrp bool
}

type marketGroup struct {
	name      string
	parent    int
	hasParent bool
}

// Sde holds the tables of one SDE directory.
type Sde struct {
	root          string
	types         map[int]typeRow
	byName        map[string]int
	groups        map[int][2]string // category name, group name
	market        map[int]marketGroup
	metaTypes     map[int]int
	metaGroups    map[int]string
	times         map[key]int
	products      []productRow
	materials     map[key][]amount
	skills        map[key][]int
	probabilities map[[3]int]*big.Rat
}

func readTable(root, table string) ([]map[string]string, error) {
	f, err := os.Open(filepath.Join(root, table+".csv.bz2"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	reader := csv.NewReader(bzip2.NewReader(f))
	reader.FieldsPerRecord = -1
	records, err := reader.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", table, err)
	}
	if len(records) == 0 {
		return nil, nil
	}
	rows := make([]map[string]string, 0, len(records)-1)
	for _, record := range records[1:] {
		row := map[string]string{}
		for i, column := range records[0] {
			if i < len(record) {
				row[column] = record[i]
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func atoi(text string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(text))
	return n
}

func optional(text string) (int, bool) {
	text = strings.TrimSpace(text)
	if text == "" || text == "None" {
		return 0, false
	}
	return atoi(text), true
}

func loadSde(root string) (*Sde, error) {
	tables := map[string][]map[string]string{}
	for _, name := range []string{"invTypes", "invGroups", "invCategories", "invMarketGroups", "invMetaTypes",
		"invMetaGroups", "industryActivity", "industryActivityProducts", "industryActivityMaterials",
		"industryActivitySkills", "industryActivityProbabilities"} {
		rows, err := readTable(root, name)
		if err != nil {
			return nil, err
		}
		tables[name] = rows
	}
	s := &Sde{root: root, types: map[int]typeRow{}, byName: map[string]int{}, groups: map[int][2]string{},
		market: map[int]marketGroup{}, metaTypes: map[int]int{}, metaGroups: map[int]string{}, times: map[key]int{},
		materials: map[key][]amount{}, skills: map[key][]int{}, probabilities: map[[3]int]*big.Rat{}}
	for _, r := range tables["invTypes"] {
		volume, _ := strconv.ParseFloat(strings.TrimSpace(r["volume"]), 64)
		mg, has := optional(r["marketGroupID"])
		t := typeRow{r["typeName"], atoi(r["groupID"]), volume, strings.TrimSpace(r["published"]) == "1", mg, has}
		s.types[atoi(r["typeID"])] = t
		if t.published {
			s.byName[t.name] = atoi(r["typeID"])
		}
	}
	categories := map[int]string{}
	for _, r := range tables["invCategories"] {
		categories[atoi(r["categoryID"])] = r["categoryName"]
	}
	for _, r := range tables["invGroups"] {
		s.groups[atoi(r["groupID"])] = [2]string{categories[atoi(r["categoryID"])], r["groupName"]}
	}
	for _, r := range tables["invMarketGroups"] {
		parent, has := optional(r["parentGroupID"])
		s.market[atoi(r["marketGroupID"])] = marketGroup{r["marketGroupName"], parent, has}
	}
	for _, r := range tables["invMetaTypes"] {
		if meta, ok := optional(r["metaGroupID"]); ok {
			s.metaTypes[atoi(r["typeID"])] = meta
		}
	}
	for _, r := range tables["invMetaGroups"] {
		s.metaGroups[atoi(r["metaGroupID"])] = r["metaGroupName"]
	}
	for _, r := range tables["industryActivity"] {
		s.times[key{atoi(r["typeID"]), atoi(r["activityID"])}] = atoi(r["time"])
	}
	for _, r := range tables["industryActivityProducts"] {
		s.products = append(s.products, productRow{atoi(r["typeID"]), atoi(r["activityID"]),
			atoi(r["productTypeID"]), atoi(r["quantity"])})
	}
	for _, r := range tables["industryActivityMaterials"] {
		k := key{atoi(r["typeID"]), atoi(r["activityID"])}
		s.materials[k] = append(s.materials[k], amount{atoi(r["materialTypeID"]), atoi(r["quantity"])})
	}
	for _, r := range tables["industryActivitySkills"] {
		k := key{atoi(r["typeID"]), atoi(r["activityID"])}
		s.skills[k] = append(s.skills[k], atoi(r["skillID"]))
	}
	for _, r := range tables["industryActivityProbabilities"] {
		p, ok := new(big.Rat).SetString(strings.TrimSpace(r["probability"]))
		if ok {
			s.probabilities[[3]int{atoi(r["typeID"]), atoi(r["activityID"]), atoi(r["productTypeID"])}] = p
		}
	}
	return s, nil
}

// shipVolumes reads ship_volumes.yaml: `group name: volume` lines, comments and blank lines skipped.
func (s *Sde) shipVolumes() map[string]float64 {
	volumes := map[string]float64{}
	data, err := os.ReadFile(filepath.Join(s.root, "ship_volumes.yaml"))
	if err != nil {
		return volumes
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		cut := strings.LastIndex(line, ":")
		if cut < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(strings.TrimSpace(line[cut+1:]), 64); err == nil {
			volumes[strings.Trim(strings.TrimSpace(line[:cut]), `'"`)] = v
		}
	}
	return volumes
}

// productOf is the first product row of a blueprint for one of the activities, tried in order.
func (s *Sde) productOf(blueprint int, activities ...int) (productRow, bool) {
	for _, activity := range activities {
		for _, row := range s.products {
			if row.blueprint == blueprint && row.activity == activity {
				return row, true
			}
		}
	}
	return productRow{}, false
}

// makersOf lists the product rows making a type by one of the activities, in file order.
func (s *Sde) makersOf(product int, activities ...int) []productRow {
	var rows []productRow
	for _, row := range s.products {
		for _, activity := range activities {
			if row.product == product && row.activity == activity {
				rows = append(rows, row)
			}
		}
	}
	return rows
}

func (s *Sde) buildable(typeID int) bool {
	return len(s.makersOf(typeID, manufacturing, reactions)) > 0
}
