import capability from './capability';
import contractErrors from './contract-errors';

export default {
  capability,
  'contract-errors': contractErrors,
};
