package pii

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Names of people are found three ways, each a shape regulatory text does
// not take: an honorific and a capitalised word ("Mr Murphy", "Dr Aoife
// Byrne"); a self-introduction and two or more capitalised words ("my name
// is Seán Kelly"); and a common given name followed by a capitalised word
// ("Mary Murphy"). Given names that are also everyday words (Will, May,
// Mark, Grace, Bill) are not in the list.
var (
	honorificPattern = regexp.MustCompile(`\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Fr|Rev)\.?\s+\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+){0,2}`)
	introPattern     = regexp.MustCompile(`(?i:\b(?:my name is|i am called|name:|signed))\s+(\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)+)`)
	// After "my name is" one capitalised word is a name too.
	myNamePattern = regexp.MustCompile(`(?i:\b(?:my name is|i am called))\s+(\p{Lu}[\p{L}'’-]+)`)
	givenNameWord = regexp.MustCompile(`\p{Lu}\p{Ll}+`)
	surnameAfter  = regexp.MustCompile(`^\s+(?:(?:O|Mac|Mc|Ní|Ni|Nic|Ó|Ua)['’ ]?)?\p{Lu}[\p{L}'’-]+`)
)

func findNames(text string) []Match {
	out := matchesOf(KindName, honorificPattern, text, 0)
	for _, loc := range introPattern.FindAllStringSubmatchIndex(text, -1) {
		out = append(out, Match{KindName, loc[2], loc[3]})
	}
	for _, loc := range myNamePattern.FindAllStringSubmatchIndex(text, -1) {
		out = append(out, Match{KindName, loc[2], loc[3]})
	}
	out = append(out, otherScriptNames(text)...)
	return append(out, givenNameMatches(text)...)
}

// givenNameMatches finds a given name followed by a capitalised word,
// reading words directly rather than by pattern: it runs on most texts.
func givenNameMatches(text string) []Match {
	var out []Match
	for _, loc := range givenNameWord.FindAllStringIndex(text, -1) {
		// Unicode word start: "\b" only knows ASCII letters.
		before, _ := utf8.DecodeLastRuneInString(text[:loc[0]])
		if unicode.IsLetter(before) || !givenNames[strings.ToLower(text[loc[0]:loc[1]])] {
			continue
		}
		if m := surnameAfter.FindStringIndex(text[loc[1]:]); m != nil {
			out = append(out, Match{KindName, loc[0], loc[1] + m[1]})
		}
	}
	return out
}

// givenNames are common given names in Ireland and the UK, in lower case,
// with and without their fadas.
var givenNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`
		aaron adam aidan aileen aine áine alan alice alison amanda amy andrew angela ann anna anne anthony aoife
		barry ben brendan brian bridget caoimhe caroline catherine cathal ciara ciaran ciarán claire colm conor
		daniel darragh david declan deirdre denis derek donal dylan eamon eamonn edward eileen eimear elaine eleanor
		elizabeth emily emma eoin eve fiona frank gary george gerard grainne gráinne helen hugh ian isabel jack
		jacqueline james jane janet jason jennifer jessica joan joanne john jonathan joseph julie karen kate
		katherine kathleen kevin laura liam linda lisa louise lucy maeve margaret maria marie martin mary maureen
		michael michelle muireann niall niamh nicola noel nora oisin oisín oliver orla padraig pádraig patricia
		patrick paul peter philip rachel rebecca richard robert roisin róisín ronan rory ruth ryan sarah sean seán
		shane sharon sinead sinéad siobhan siobhán sophie stephen susan tadhg thomas timothy tom tomas tomás
		una úna victoria william`) {
		m[n] = true
	}
	return m
}()

// introCues are self-introductions in other languages ("my name is",
// "I am called"), as the detectors read them (folded: a Cyrillic "е"
// reads as a Latin one). A name follows: capitalised words, or two to
// four Han characters.
var introCues = func() []string {
	var out []string
	for _, c := range []string{
		"меня зовут", "моё имя", "мое имя", "мене звати", "моє ім'я", // Russian, Ukrainian
		"με λένε", "ονομάζομαι", "το όνομά μου είναι", // Greek
		"我叫", "我的名字是", "我的名字叫", "我姓", // Chinese
		"私の名前は", "僕の名前は", // Japanese
		"제 이름은", "내 이름은", // Korean
	} {
		out = append(out, Fold(c))
	}
	return out
}()

// hasIntroInOtherScript: text holds one of introCues (only a text with
// letters outside ASCII can).
func hasIntroInOtherScript(text string) bool {
	if !holdsCueScript(text) {
		return false
	}
	lower := strings.ToLower(text)
	for _, c := range introCues {
		if strings.Contains(lower, c) {
			return true
		}
	}
	return false
}

// holdsCueScript: text has a Greek or Cyrillic letter, or a CJK or
// Hangul character (by their UTF-8 lead bytes), as every cue of
// introCues does.
func holdsCueScript(text string) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c >= 0xCE && c <= 0xD1 || c >= 0xE3 && c <= 0xED {
			return true
		}
	}
	return false
}

// otherScriptNames finds the name after each cue of introCues.
func otherScriptNames(text string) []Match {
	if !hasIntroInOtherScript(text) {
		return nil
	}
	lower := strings.ToLower(text)
	var out []Match
	for _, c := range introCues {
		for from := 0; ; {
			k := strings.Index(lower[from:], c)
			if k < 0 {
				break
			}
			at := from + k + len(c)
			from = at
			// strings.ToLower keeps these scripts' byte lengths, so an
			// offset in lower is one in text.
			if len(lower) != len(text) {
				return out
			}
			start := at
			for start < len(text) && text[start] == ' ' {
				start++
			}
			if end := nameAfter(text, start); end > start {
				out = append(out, Match{KindName, start, end})
			}
		}
	}
	return out
}

// nameAfter is the end of the name starting at i: up to three
// capitalised words, or two to four Han characters; i when none.
func nameAfter(text string, i int) int {
	r, _ := utf8.DecodeRuneInString(text[i:])
	if unicode.Is(unicode.Han, r) {
		j, n := i, 0
		for j < len(text) && n < 4 {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !unicode.Is(unicode.Han, r) {
				break
			}
			j += size
			n++
		}
		if n >= 2 {
			return j
		}
		return i
	}
	end := i
	for w := 0; w < 3; w++ {
		r, _ := utf8.DecodeRuneInString(text[end:])
		if !unicode.IsUpper(r) {
			break
		}
		j := end
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) && r != '\'' && r != '-' {
				break
			}
			j += size
		}
		end = j
		if end+1 < len(text) && text[end] == ' ' {
			if r, _ := utf8.DecodeRuneInString(text[end+1:]); unicode.IsUpper(r) {
				end++
				continue
			}
		}
		break
	}
	return end
}
