package input

// jsonPrefixMargin is how far before the end of a record's first bytes a
// syntax error must be to be one of the record, not of its cut: a literal,
// a number or an escape (a surrogate pair is 12 bytes) cut at the end of
// the prefix is not an error.
const jsonPrefixMargin = 16

// checkPrefix looks at the first bytes of a JSON record longer than the
// read buffer: an error well before their end is the record's first
// invalid byte, and fails it at once (the splitter then skips the rest of
// it without reading it into memory).
func (j *jsonReader) checkPrefix(prefix []byte) error {
	err := j.parse(prefix)
	if err == nil || j.scan.pos+jsonPrefixMargin >= len(prefix) {
		return nil
	}
	return err
}
