/** kill -9 during an auctions generation and a bazaar snapshot write on postgres; see crash-suite.ts. */
import { crashSuite } from './crash-suite.ts';

crashSuite('postgres');
