package report

import (
	"strconv"
	"unicode/utf8"
)

// jsonFormat prints one JSON object per record, failures included (with
// an "error" member), all on stdout; with schema ids, each object names
// them.
type jsonFormat struct{ ids *SchemaIDs }

func (jsonFormat) String() string { return "json" }
func (f jsonFormat) appendRecord(b []byte, r *Record) []byte {
	return f.ids.close(appendJSONReport(b, r))
}
func (f jsonFormat) appendDry(b []byte, r *Record) []byte { return f.ids.close(appendDryJSON(b, r)) }
func (jsonFormat) failuresOnStdout() bool                 { return true }
func (jsonFormat) needsRecordBytes() bool                 { return false }
func (jsonFormat) printsDeliveries() bool                 { return true }

// appendJSONRecordStart opens the JSON object of a record's report:
// {"source":..,"record":..,"topic":..,"partition":..
func appendJSONRecordStart(b []byte, source string, number int64, topic string, partition int32) []byte {
	b = append(b, `{"source":`...)
	b = appendJSONString(b, source)
	b = append(b, `,"record":`...)
	b = strconv.AppendInt(b, number, 10)
	b = append(b, `,"topic":`...)
	b = appendJSONString(b, topic)
	b = append(b, `,"partition":`...)
	return strconv.AppendInt(b, int64(partition), 10)
}

// appendJSONReport appends one JSON object and a newline:
// {"source":..,"record":..,"topic":..,"partition":..,"offset":..,"timestamp":..[,"error":..]}.
func appendJSONReport(b []byte, rep *Record) []byte {
	b = appendJSONRecordStart(b, rep.Source, rep.Number, rep.Topic, rep.Partition)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, rep.Offset, 10)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, rep.timestamp(), 10)
	if rep.Err != nil {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, rep.Err.Error())
	}
	return append(b, "}\n"...)
}

// SchemaIDs are the Schema Registry ids the keys and values of a run are
// framed with; 0: none (raw bytes).
type SchemaIDs struct {
	Key, Value int
}

// WithSchemaIDs returns f, whose json reports then name the schema ids as
// key_schema_id and value_schema_id (null for none).
func WithSchemaIDs(f Format, ids SchemaIDs) Format {
	if _, ok := f.(jsonFormat); ok {
		return jsonFormat{ids: &ids}
	}
	return f
}

// close inserts the schema ids before the "}\n" that ends a report
// object; without ids, b is unchanged.
func (ids *SchemaIDs) close(b []byte) []byte {
	if ids == nil || len(b) < 2 {
		return b
	}
	b = b[:len(b)-2]
	b = append(b, `,"key_schema_id":`...)
	b = appendID(b, ids.Key)
	b = append(b, `,"value_schema_id":`...)
	b = appendID(b, ids.Value)
	return append(b, "}\n"...)
}

// appendID appends a schema id, null for 0.
func appendID(b []byte, id int) []byte {
	if id == 0 {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, int64(id), 10)
}

// appendJSONString appends s as a JSON string. Control characters are
// escaped and invalid UTF-8 becomes U+FFFD, so the output is always valid
// JSON.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}

// appendDryJSON appends one JSON object and a newline:
// {"source":..,"record":..,"topic":..,"partition":..,"key":..,"value_size":..,
// "headers":[{"key":..,"value":..}],"timestamp":..[,"error":..]}. Keys and
// values are JSON strings of their raw bytes (as appendJSONString writes
// them) or null; value_size is null for a null value.
func appendDryJSON(b []byte, rep *Record) []byte {
	b = appendJSONRecordStart(b, rep.Source, rep.Number, rep.Topic, rep.Partition)
	b = append(b, `,"key":`...)
	b = appendJSONBytes(b, rep.Key)
	b = append(b, `,"value_size":`...)
	if rep.Value == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(len(rep.Value)), 10)
	}
	b = append(b, `,"headers":[`...)
	for i, h := range rep.Headers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendJSONString(b, h.Key)
		b = append(b, `,"value":`...)
		b = appendJSONBytes(b, h.Value)
		b = append(b, '}')
	}
	b = append(b, `],"timestamp":`...)
	b = strconv.AppendInt(b, rep.timestamp(), 10)
	if rep.Err != nil {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, rep.Err.Error())
	}
	return append(b, "}\n"...)
}

// appendJSONBytes appends v as a JSON string, or null when v is nil.
func appendJSONBytes(b, v []byte) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return appendJSONString(b, string(v))
}
