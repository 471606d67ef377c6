package metadatacmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kproduce/kproduce/internal/cli/cmdutil"
	"github.com/kproduce/kproduce/pkg/protocol"
)

// writeText prints the report for people, in aligned tables: the
// cluster, its brokers, the API versions kproduce would use with each
// broker, and the topics with their partitions.
func (r *metadataReport) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	id := "(none)"
	if r.ClusterID != nil {
		id = *r.ClusterID
	}
	fmt.Fprintf(tw, "cluster %s, controller %d\n\n", id, r.Controller)
	fmt.Fprintf(tw, "%s:\n", cmdutil.Plural(len(r.Brokers), "broker"))
	fmt.Fprintf(tw, "  ID\tADDRESS\tRACK\n")
	for _, b := range r.Brokers {
		rack, mark := "-", ""
		if b.Rack != nil {
			rack = *b.Rack
		}
		if b.Controller {
			mark = "controller"
		}
		fmt.Fprintln(tw, strings.TrimRight(fmt.Sprintf("  %d\t%s\t%s\t%s", b.ID, b.addr(), rack, mark), "\t"))
	}
	fmt.Fprintf(tw, "\napi versions kproduce uses (the highest both speak):\n")
	head := []string{"  API", "KPRODUCE"}
	for _, b := range r.Brokers {
		head = append(head, fmt.Sprintf("BROKER %d", b.ID))
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, k := range r.apis {
		cv, _ := protocol.ClientVersions(k)
		row := []string{"  " + k.String(), rangeText(versionRange{cv.Min, cv.Max})}
		for _, b := range r.Brokers {
			a, ok := b.APIVersions[k.String()]
			row = append(row, versionCell(a, ok))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	r.writeTopicsText(tw)
	return tw.Flush()
}

// writeTopicsText prints the topics and their partitions.
func (r *metadataReport) writeTopicsText(tw *tabwriter.Writer) {
	fmt.Fprintf(tw, "\n%s:\n", cmdutil.Plural(len(r.Topics), "topic"))
	for _, t := range r.Topics {
		if t.Error != nil {
			fmt.Fprintf(tw, "  topic %q: error %s\n", t.Name, *t.Error)
			continue
		}
		internal := ""
		if t.Internal {
			internal = " (internal)"
		}
		fmt.Fprintf(tw, "  topic %q%s, %s:\n", t.Name, internal, cmdutil.Plural(len(t.Partitions), "partition"))
		fmt.Fprintf(tw, "    PARTITION\tLEADER\tREPLICAS\tISR\tERROR\n")
		for _, p := range t.Partitions {
			e := "-"
			if p.Error != nil {
				e = *p.Error
			}
			leader := fmt.Sprint(p.Leader)
			if p.Leader < 0 {
				leader = "none"
			}
			fmt.Fprintf(tw, "    %d\t%s\t%s\t%s\t%s\n", p.Partition, leader, ids(p.Replicas), ids(p.ISR), e)
		}
	}
}

// rangeText is "v3-v11", or "v1" for a single version.
func rangeText(v versionRange) string {
	if v.Min == v.Max {
		return fmt.Sprintf("v%d", v.Min)
	}
	return fmt.Sprintf("v%d-v%d", v.Min, v.Max)
}

// versionCell is the version kproduce uses with a broker, "unsupported",
// or "?" when the broker could not be asked.
func versionCell(a apiVersionReport, ok bool) string {
	switch {
	case !ok:
		return "?"
	case a.Version == nil:
		return "unsupported"
	}
	return fmt.Sprintf("v%d", *a.Version)
}

// ids joins broker ids with commas; "-" for none.
func ids(s []int32) string {
	if len(s) == 0 {
		return "-"
	}
	parts := make([]string, len(s))
	for i, id := range s {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ",")
}
