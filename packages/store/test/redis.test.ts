/** The store contract against Redis. */
import { contract } from './contract.ts';
import { redisSetup } from './support.ts';

contract('Redis', redisSetup);
