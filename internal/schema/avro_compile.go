package schema

// avroKind is the kind of an Avro schema node.
type avroKind uint8

const (
	avroNull avroKind = iota
	avroBoolean
	avroInt
	avroLong
	avroFloat
	avroDouble
	avroBytes
	avroString
	avroRecord
	avroEnum
	avroArray
	avroMap
	avroUnion
	avroFixed
)

// avroNode is one node of a compiled Avro schema: what the encoder needs,
// looked up without reflection.
type avroNode struct {
	kind    avroKind
	logical string
	// scale and precision of a decimal.
	scale, precision int
	// size of a fixed.
	size int
	// name is the type's name in errors and union wrappers: the full name
	// of a named type, else the type's own name (long, array, ...).
	name string
	// short is a named type's name without its namespace.
	short string
	// fields of a record, in the schema's order, and their index by name
	// (aliases included).
	fields     []avroField
	fieldIndex map[string]int
	// symbols of an enum, and their index by name.
	symbols     []string
	symbolIndex map[string]int
	// items of an array, values of a map.
	items *avroNode
	// branches of a union, the index of its null branch (-1: none) and the
	// index of each branch by the names a wrapper may use.
	branches    []*avroNode
	nullBranch  int
	branchIndex map[string]int
}

// avroField is one field of a record.
type avroField struct {
	name string
	node *avroNode
	// def is the field's default, already encoded; hasDef says it has one.
	def    []byte
	hasDef bool
}
