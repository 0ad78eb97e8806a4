/** The store contract against PostgreSQL. */
import { contract } from './contract.ts';
import { postgresSetup } from './support.ts';

contract('PostgreSQL', postgresSetup);
