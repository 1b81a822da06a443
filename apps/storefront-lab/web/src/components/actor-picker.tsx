import type { LabActor } from '../api';

const CUSTOMERS = [72, 91, 73] as const;
const TENANTS = ['acme', 'globex'] as const;

/** Who is signed in for this run: the server builds the action context from it, never from the model. */
export function ActorPicker({
  actor,
  onChange,
  id,
}: {
  actor: LabActor;
  onChange: (actor: LabActor) => void;
  id: string;
}) {
  return (
    <fieldset className="actor">
      <legend>Signed in as</legend>
      <label htmlFor={`${id}-customer`}>Customer</label>
      <select
        id={`${id}-customer`}
        value={actor.customerId}
        onChange={(event) => onChange({ ...actor, customerId: Number(event.target.value) })}
      >
        {CUSTOMERS.map((customer) => (
          <option key={customer} value={customer}>
            {customer}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-tenant`}>Tenant</label>
      <select
        id={`${id}-tenant`}
        value={actor.tenant}
        onChange={(event) => onChange({ ...actor, tenant: event.target.value })}
      >
        {TENANTS.map((tenant) => (
          <option key={tenant} value={tenant}>
            {tenant}
          </option>
        ))}
      </select>
    </fieldset>
  );
}

export const CUSTOMER_72: LabActor = { customerId: 72, tenant: 'acme' };
