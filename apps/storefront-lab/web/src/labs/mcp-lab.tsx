import { useState } from 'react';
import scenarioSource from '../../../src/mcp/mcp-session.scenario.ts?raw';
import { type McpListingView, labApi } from '../api';
import { CodeView } from '../components/code-view';
import { Status } from '../components/status';
import { useAction } from '../use-action';

const USERS = [
  { id: 'customer:72', label: 'Customer 72 at acme' },
  { id: 'customer:91', label: 'Customer 91 at acme' },
  { id: 'staff:ana', label: 'Ana, staff at acme (may only review)' },
  { id: 'staff:gus', label: 'Gus, staff at globex (may only review)' },
];

const labelOf = (id: string) => USERS.find((user) => user.id === id)?.label ?? id;

/** MCP: one MCP client session per user lists the tools; each sees only what its CASL rules allow. */
export function McpLab() {
  const [first, setFirst] = useState(USERS[0].id);
  const [second, setSecond] = useState(USERS[2].id);
  const { data, loading, error, run } = useAction(labApi.mcpListings);
  return (
    <>
      <p className="lede">
        The lab serves the storefront's order capabilities as tools of an MCP server (<code>POST /api/mcp</code>). An
        MCP client connects as each user and asks <code>tools/list</code>: a tool its user may not use is not named to
        it, and calling it anyway is answered as an unknown tool.
      </p>
      <form
        className="controls"
        onSubmit={(event) => {
          event.preventDefault();
          void run([first, second]);
        }}
      >
        <UserPicker id="mcp-first" label="First user" value={first} onChange={setFirst} />
        <UserPicker id="mcp-second" label="Second user" value={second} onChange={setSecond} />
        <button type="submit" id="run-mcp" disabled={loading}>
          List the tools as each user
        </button>
      </form>
      <Status loading={loading} error={error} />
      <div className="result-with-code">
        <div id="mcp-listings" className="before-after">
          {data?.map((listing, index) => (
            <Listing key={`${listing.user}-${index}`} listing={listing} />
          ))}
        </div>
        <aside>
          <CodeView title="The MCP client session" source={scenarioSource} from="  private async list(" />
        </aside>
      </div>
    </>
  );
}

function UserPicker(props: { id: string; label: string; value: string; onChange: (id: string) => void }) {
  return (
    <label htmlFor={props.id}>
      {props.label}
      <select id={props.id} value={props.value} onChange={(event) => props.onChange(event.target.value)}>
        {USERS.map((user) => (
          <option key={user.id} value={user.id}>
            {user.label}
          </option>
        ))}
      </select>
    </label>
  );
}

function Listing({ listing }: { listing: McpListingView }) {
  return (
    <section className="mcp-listing" data-user={listing.user}>
      <h3 className="column-heading">{labelOf(listing.user)}</h3>
      {listing.tools.length === 0 ? (
        <p className="muted">No tools: nothing this user may use is served.</p>
      ) : (
        <ul>
          {listing.tools.map((tool) => (
            <li key={tool.name}>
              <code>{tool.name}</code> <span className="muted">{tool.description}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
